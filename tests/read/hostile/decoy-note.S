/* The package note of the hostile test's library (decoy/6.6), in a
 * section of its own linked after big-note.S's. */
        .section .note.zpkg,"a",@note
        .p2align 2
        .long 4
        .long 2f - 1f
        .long 0xcafe1a7e
        .asciz "FDO"
1:      .asciz "{\"type\":\"deb\",\"name\":\"decoy\",\"version\":\"6.6\",\"architecture\":\"amd64\"}"
2:      .p2align 2
        .section .note.GNU-stack,"",@progbits
