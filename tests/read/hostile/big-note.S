/* A note of 8 KiB, linked before the package note of the hostile test's
 * library: the package note then lies past the first page, the one page
 * of the file a core holds, so a core's reader goes to the disk for it. */
        .section .note.zbig,"a",@note
        .p2align 2
        .long 4
        .long 8192
        .long 0x1234
        .asciz "BIG"
        .fill 8192,1,0x5a
        .section .note.GNU-stack,"",@progbits
