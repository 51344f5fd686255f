/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The package metadata in systemd's shape: the JSON object systemd-coredump
 * writes to COREDUMP_PACKAGE_JSON and "systemd-analyze inspect-elf --json"
 * prints, so tools written for systemd (apport copies the field) read
 * pkgnote's output unchanged.  Facts of systemd 252 (src/shared/elf-util.c),
 * checked against its inspect-elf on real files and cores:
 *
 *  - One object: "elfType" ("coredump"; for other objects "executable"
 *    when a PT_INTERP program header exists, else "library", whatever
 *    e_type says), "elfArchitecture" (elfutils' name of e_machine, left
 *    out where elfutils has none), then one member per module, keyed by
 *    its name, holding the module's package note as parsed, with
 *    "buildId" (the module's build-id in hex) set over the note's own.
 *  - A module with several package notes: the first one counts.
 *  - A core's modules without a package note are left out; a file
 *    without one is a member holding only "buildId", where it has one.
 *    Package notes count only where a PT_NOTE holds them (an object
 *    file's note sections do not).
 *  - Names: a file's is the name it was given; in a core every module
 *    but the executable is named by the base name of its entry in the
 *    dynamic linker's list (elfutils' libdwfl names them so), and the
 *    executable by its path (NT_FILE) in inspect-elf, by its base name in
 *    systemd-coredump's field (which hands libdwfl the executable: the
 *    list's first entry, named after it).  The first module of a name wins.
 *
 * pkgnote differs where systemd fails: a note that is no JSON object, or
 * whose owner is not "FDO", is no package note here (it is a problem of
 * the report), where systemd gives up on the whole object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "02-elf-const.h"
#include "03-model-json.h"

/* elfutils' names (dwelf_elf_e_machine_string()), which systemd prints. */
static const char *elfutils_machine(unsigned machine) {
        switch (machine) {
        case EM_SPARC: return "SPARC";
        case EM_386: return "Intel 80386";
        case EM_68K: return "M68K";
        case EM_MIPS: return "MIPS R3000";
        case EM_S370: return "IBM System/370";
        case EM_PARISC: return "HPPA";
        case EM_SPARC32PLUS: return "SPARC v8+";
        case EM_PPC: return "PowerPC";
        case EM_PPC64: return "PowerPC64";
        case EM_S390: return "IBM S/390";
        case EM_ARM: return "ARM";
        case 41: return "Digital Alpha"; /* EM_FAKE_ALPHA */
        case EM_SH: return "SH";
        case EM_SPARCV9: return "SPARC v9";
        case EM_IA_64: return "Intel IA-64";
        case EM_X86_64: return "AMD x86-64";
        case EM_AARCH64: return "AARCH64";
        case EM_RISCV: return "RISC-V";
        case EM_BPF: return "BPF";
        case EM_LOONGARCH: return "LoongArch";
        default: return NULL;
        }
}

/* The object systemd keeps for a module: INFO's first package note with
 * BUILD_ID over its own, or only the build-id when WITH_ID_ALONE; NULL
 * for neither (or out of memory: *FAILED). */
static json_t *module_object(const pkgnote_info *info, const char *build_id, bool with_id_alone, bool *failed) {
        json_t *o = NULL;
        if (info && pkgnote_info_package_count(info) > 0) {
                const char *j = pkgnote_info_package_json(info, 0);
                /* It parsed as an object when the summary was read. */
                o = json_loads(j, 0, NULL);
                if (!json_is_object(o)) {
                        json_decref(o);
                        *failed = true;
                        return NULL;
                }
        } else if (build_id && with_id_alone)
                o = json_object();
        else
                return NULL;
        if (!o || (build_id && json_object_set_new(o, "buildId", json_string(build_id)) < 0)) {
                json_decref(o);
                *failed = true;
                return NULL;
        }
        return o;
}

static json_t *header(const char *elf_type, unsigned machine, bool *failed) {
        json_t *o = json_object();
        const char *arch = elfutils_machine(machine);
        if (!o || json_object_set_new(o, "elfType", json_string(elf_type)) < 0 ||
            (arch && json_object_set_new(o, "elfArchitecture", json_string(arch)) < 0))
                *failed = true;
        return o;
}

/* Adds V (consumed) under NAME unless a module of that name came first. */
static void add_module(json_t *o, const char *name, json_t *v, bool *failed) {
        size_t len;
        char *k = pn_utf8_or_hex(name, strlen(name), &len); /* keys must be UTF-8 */
        if (!k || !o)
                *failed = true;
        else if (json_object_get(o, k))
                ; /* the first of a name wins */
        else if (json_object_set(o, k, v) < 0)
                *failed = true;
        free(k);
        json_decref(v);
}

static int finish(json_t *o, bool failed, char **ret) {
        int r = failed || !o ? pn_oom()
                             : pn_json_dump_report(o, JSON_COMPACT | JSON_PRESERVE_ORDER, ret);
        json_decref(o);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_info_to_systemd_json(const pkgnote_info *info, pkgnote_object *e, const char *name,
                                                char **ret) {
        if (!info || !e)
                return pn_error(-EINVAL, "no summary or no ELF object");
        bool failed = false, interp = false, pt_note = false;
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(e, &ph);
        for (int i = 0; i < n; i++) {
                interp |= ph[i].type == PT_INTERP;
                pt_note |= ph[i].type == PT_NOTE;
        }
        bool core = pkgnote_object_type(e) == ET_CORE;
        json_t *o = header(core ? "coredump" : interp ? "executable" : "library", pkgnote_object_machine(e), &failed);
        /* systemd looks for package notes through PT_NOTE alone: an
         * object file's note sections are not its package. */
        json_t *m = core ? NULL : module_object(pt_note ? info : NULL, pkgnote_info_build_id(info), true, &failed);
        if (m)
                add_module(o, name ? name : "(unnamed)", m, &failed);
        return finish(o, failed, ret);
}

PKGNOTE_PUBLIC int pkgnote_core_to_systemd_json(pkgnote_core *c, unsigned flags, char **ret) {
        if (!c || (flags & ~PKGNOTE_SYSTEMD_COREDUMP))
                return pn_error(-EINVAL, c ? "unknown flags" : "no core");
        bool failed = false;
        pkgnote_process_info p = {.size = sizeof p};
        if (pkgnote_core_process(c, &p) < 0)
                return -EINVAL;
        json_t *o = header("coredump", p.machine, &failed);
        const pkgnote_module *main = pkgnote_core_main_module(c);
        for (size_t i = 0; i < pkgnote_core_module_count(c) && !failed; i++) {
                const pkgnote_module *mod = pkgnote_core_module(c, i);
                json_t *v = module_object(pkgnote_module_info(mod), pkgnote_module_build_id(mod), false, &failed);
                if (!v)
                        continue;
                const char *path = pkgnote_module_path(mod);
                char *listed = mod == main ? NULL : pn_core_link_map_name(c, mod->start, mod->end);
                const char *name = listed ? listed : path;
                if (mod != main || (flags & PKGNOTE_SYSTEMD_COREDUMP)) {
                        /* A streamed core's list cannot be read: the file's
                         * own base name is the likeliest. */
                        const char *slash = strrchr(name, '/');
                        name = slash && slash[1] ? slash + 1 : name;
                }
                add_module(o, name, v, &failed);
                free(listed);
        }
        return finish(o, failed, ret);
}
