/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote scan: the ELF objects, PE images and package notes of trees, archives and
 * images, as a table, JSON lines, SPDX or CycloneDX. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tool.h"
#include "output.h"

enum { FMT_TABLE, FMT_JSON, FMT_SPDX, FMT_CYCLONEDX, FMT_SPDX3 };

struct scan_opts {
        int format;
        const char *output;
        unsigned flags;
        unsigned threads;
        uint64_t max_bytes;
        int progress; /* -1: when stderr is a terminal */
        const char *image, *platform;
        bool images; /* list the images instead */
        bool fail_on_missing;
        int cyclonedx; /* the PKGNOTE_SBOM_CYCLONEDX* format */
        char **inputs;
        int n_inputs;
};

static bool progress_shown;

static void show_progress(void *userdata, uint64_t files, uint64_t bytes) {
        (void)userdata;
        fprintf(stderr, "\r%s: scanning: %llu files, %.1f MiB\033[K", program_name, (unsigned long long)files,
                (double)bytes / (1024.0 * 1024.0));
        fflush(stderr);
        progress_shown = true;
}

static void clear_progress(void) {
        if (progress_shown) {
                fputs("\r\033[K", stderr);
                progress_shown = false;
        }
}

static const char *architecture(const pkgnote_scan_object *o, char *buf, size_t len) {
        const char *m = pkgnote_machine_name(pkgnote_scan_object_machine(o), pkgnote_scan_object_class(o));
        if (m)
                return m;
        snprintf(buf, len, "machine-%u", pkgnote_scan_object_machine(o));
        return buf;
}

/* S escaped for a terminal, malloc()ed. */
static char *escaped(const char *s) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        tool_print_escaped(f, s ? s : "-");
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* Width in columns, counting UTF-8 sequences as one. */
static size_t width(const char *s) {
        size_t n = 0;
        for (; *s; s++)
                n += ((unsigned char)*s & 0xc0) != 0x80;
        return n;
}

static void pad(FILE *f, const char *s, size_t w) {
        fputs(s, f);
        for (size_t n = width(s); n < w; n++)
                fputc(' ', f);
}

static int cmp_ptr(const void *a, const void *b) {
        uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
        return x < y ? -1 : x > y;
}

static const char *const columns[] = {"type", "os", "name", "version", "architecture"};
#define NCOLS 5

struct row {
        char *cell[NCOLS];
        size_t objects;
};

/* The first package after I (of NP) that differs from it in a column the
 * table shows. */
static size_t row_end(const pkgnote_scan *s, size_t i, size_t np) {
        const pkgnote_metadata *m = pkgnote_scan_package(s, i);
        size_t e = i + 1;
        while (e < np) {
                const pkgnote_metadata *x = pkgnote_scan_package(s, e);
                bool same = true;
                for (int k = 0; k < NCOLS && same; k++) {
                        const char *a = pkgnote_metadata_get(m, columns[k]), *b = pkgnote_metadata_get(x, columns[k]);
                        same = !strcmp(a ? a : "", b ? b : "");
                }
                if (!same)
                        break;
                e++;
        }
        return e;
}

/* Which objects a part of the report shows: all, or those of one image
 * (IMAGE NULL: of no image). */
struct part {
        bool all;
        const pkgnote_scan_image *image;
};

static bool in_part(const struct part *pt, const pkgnote_scan_object *o) {
        return pt->all || pkgnote_scan_object_image(o) == pt->image;
}

/* How many objects of PT carry packages I to E (excluded), each counted
 * once. */
static size_t distinct_objects(const pkgnote_scan *s, const struct part *pt, size_t i, size_t e) {
        size_t n = 0;
        for (size_t q = i; q < e; q++)
                n += pkgnote_scan_package_object_count(s, q);
        const void **objs = calloc(n ? n : 1, sizeof *objs);
        size_t k = 0;
        for (size_t q = i; objs && q < e; q++)
                for (size_t j = 0; j < pkgnote_scan_package_object_count(s, q); j++)
                        if (in_part(pt, pkgnote_scan_package_object(s, q, j)))
                                objs[k++] = pkgnote_scan_package_object(s, q, j);
        size_t distinct = 0;
        if (objs) {
                qsort(objs, k, sizeof *objs, cmp_ptr);
                for (size_t q = 0; q < k; q++)
                        distinct += q == 0 || objs[q] != objs[q - 1];
        }
        free(objs);
        return distinct;
}

/* The rows of the table for PT, *NR of them, W widened to fit their
 * cells; packages that differ only in keys the table does not show
 * (osVersion, CPEs, ...) are one row. */
static struct row *table_rows(const pkgnote_scan *s, const struct part *pt, size_t w[NCOLS + 1], size_t *nr) {
        size_t np = pkgnote_scan_package_count(s);
        struct row *rows = calloc(np ? np : 1, sizeof *rows);
        *nr = 0;
        for (size_t i = 0; rows && i < np;) {
                const pkgnote_metadata *m = pkgnote_scan_package(s, i);
                size_t e = row_end(s, i, np), objects = distinct_objects(s, pt, i, e);
                if (objects == 0) {
                        i = e;
                        continue;
                }
                struct row *r = &rows[(*nr)++];
                r->objects = objects;
                for (int c = 0; c < NCOLS; c++) {
                        const char *v = pkgnote_metadata_get(m, columns[c]);
                        r->cell[c] = escaped(v && *v ? v : "-");
                        if (r->cell[c] && width(r->cell[c]) > w[c])
                                w[c] = width(r->cell[c]);
                }
                i = e;
        }
        return rows;
}

/* The heading and the NR rows, in columns W wide. */
static void print_rows(FILE *f, const struct row *rows, size_t nr, const size_t w[NCOLS + 1]) {
        if (nr == 0) {
                fputs("No package notes found.\n", f);
                return;
        }
        static const char *const heads[] = {"TYPE", "OS", "NAME", "VERSION", "ARCHITECTURE"};
        for (int c = 0; c < NCOLS; c++) {
                pad(f, heads[c], w[c]);
                fputs("  ", f);
        }
        fputs("OBJECTS\n", f);
        for (size_t i = 0; i < nr; i++) {
                for (int c = 0; c < NCOLS; c++) {
                        pad(f, rows[i].cell[c] ? rows[i].cell[c] : "?", w[c]);
                        fputs("  ", f);
                }
                fprintf(f, "%7zu\n", rows[i].objects);
        }
}

/* The objects of PT without a package note, if there are any. */
static void print_without_note(FILE *f, const pkgnote_scan *s, const struct part *pt) {
        size_t n = 0;
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *o = pkgnote_scan_object_get(s, i);
                n += in_part(pt, o) && !pkgnote_scan_object_package_count(o);
        }
        if (n == 0)
                return;
        fprintf(f, "\nObjects without a package note (%zu):\n", n);
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *o = pkgnote_scan_object_get(s, i);
                if (!in_part(pt, o) || pkgnote_scan_object_package_count(o))
                        continue;
                char buf[32];
                fputs("  ", f);
                tool_print_escaped(f, pkgnote_scan_object_path(o));
                fprintf(f, " (%s, %s", pkgnote_scan_object_kind(o), architecture(o, buf, sizeof buf));
                if (pkgnote_scan_object_db_name(o)) {
                        fputs("; package ", f);
                        tool_print_escaped(f, pkgnote_scan_object_db_name(o));
                } else if (pkgnote_scan_object_db_type(o))
                        fputs("; no package owns it", f);
                for (size_t k = 0; k < pkgnote_scan_object_container_count(o); k++) {
                        fputs(k ? " in " : "; in ", f);
                        tool_print_escaped(f, pkgnote_scan_object_container(o, pkgnote_scan_object_container_count(o) - 1 - k));
                }
                fputs(")\n", f);
        }
}

static int strcmp0(const char *a, const char *b) {
        return strcmp(a ? a : "", b ? b : "");
}

/* Database packages in order: type, name, version, architecture; the
 * objects no package owns last. */
static int cmp_db(const void *a, const void *b) {
        const pkgnote_scan_object *x = *(const pkgnote_scan_object *const *)a, *y = *(const pkgnote_scan_object *const *)b;
        if (!pkgnote_scan_object_db_name(x) != !pkgnote_scan_object_db_name(y))
                return pkgnote_scan_object_db_name(x) ? -1 : 1;
        int c = strcmp0(pkgnote_scan_object_db_type(x), pkgnote_scan_object_db_type(y));
        if (!c)
                c = strcmp0(pkgnote_scan_object_db_name(x), pkgnote_scan_object_db_name(y));
        if (!c)
                c = strcmp0(pkgnote_scan_object_db_version(x), pkgnote_scan_object_db_version(y));
        if (!c)
                c = strcmp0(pkgnote_scan_object_db_architecture(x), pkgnote_scan_object_db_architecture(y));
        return c;
}

/* Whether O should carry a package note: an executable or shared object
 * that a package ships (by its root's database; without one, any). */
static bool wants_note(const pkgnote_scan_object *o) {
        unsigned t = pkgnote_scan_object_elf_type(o);
        if (t != 2 /* ET_EXEC */ && t != 3 /* ET_DYN */)
                return false;
        return !pkgnote_scan_object_db_type(o) || pkgnote_scan_object_db_name(o);
}

/* For the objects of PT in a root with a package database: how many of
 * each package's objects carry a note, and the notes that name another
 * package or version than the database. */
static void print_coverage(FILE *f, const pkgnote_scan *s, const struct part *pt) {
        size_t n = 0, no = pkgnote_scan_object_count(s);
        const pkgnote_scan_object **v = malloc((no ? no : 1) * sizeof *v);
        if (!v)
                return;
        for (size_t i = 0; i < no; i++) {
                const pkgnote_scan_object *o = pkgnote_scan_object_get(s, i);
                if (in_part(pt, o) && pkgnote_scan_object_db_type(o) && pkgnote_scan_object_container_count(o) == 0)
                        v[n++] = o;
        }
        if (n == 0) {
                free(v);
                return;
        }
        qsort(v, n, sizeof *v, cmp_db);
        size_t wn = 7, wv = 7;
        for (size_t i = 0; i < n; i++) {
                if (!pkgnote_scan_object_db_name(v[i]))
                        continue;
                size_t a = width(pkgnote_scan_object_db_name(v[i])), b = width(pkgnote_scan_object_db_version(v[i]));
                wn = a > wn ? a : wn;
                wv = b > wv ? b : wv;
        }
        fputs("\nPackage database coverage (objects with a package note, of those the package ships):\n", f);
        fputs("  ", f);
        pad(f, "PACKAGE", wn + 2);
        pad(f, "VERSION", wv + 2);
        fputs("NOTES  OBJECTS\n", f);
        size_t mismatches = 0;
        for (size_t i = 0; i < n;) {
                size_t e = i + 1, with = 0;
                while (e < n && cmp_db(&v[i], &v[e]) == 0)
                        e++;
                for (size_t k = i; k < e; k++) {
                        with += pkgnote_scan_object_package_count(v[k]) > 0;
                        mismatches += pkgnote_scan_object_db_mismatch(v[k]) != 0;
                }
                fputs("  ", f);
                if (pkgnote_scan_object_db_name(v[i])) {
                        char *a = escaped(pkgnote_scan_object_db_name(v[i])), *b = escaped(pkgnote_scan_object_db_version(v[i]));
                        pad(f, a ? a : "?", wn + 2);
                        pad(f, b ? b : "?", wv + 2);
                        free(a);
                        free(b);
                } else
                        pad(f, "(owned by no package)", wn + wv + 4);
                fprintf(f, "%5zu  %7zu\n", with, e - i);
                i = e;
        }
        if (mismatches) {
                fprintf(f, "\nPackage notes that disagree with the database (%zu):\n", mismatches);
                for (size_t i = 0; i < n; i++) {
                        if (!pkgnote_scan_object_db_mismatch(v[i]))
                                continue;
                        const pkgnote_metadata *m = pkgnote_scan_object_package(v[i], 0);
                        fputs("  ", f);
                        tool_print_escaped(f, pkgnote_scan_object_path(v[i]));
                        fputs(": note ", f);
                        tool_print_escaped(f, pkgnote_metadata_get(m, PKGNOTE_KEY_NAME) ? pkgnote_metadata_get(m, PKGNOTE_KEY_NAME) : "?");
                        fputc(' ', f);
                        tool_print_escaped(f, pkgnote_metadata_get(m, PKGNOTE_KEY_VERSION) ? pkgnote_metadata_get(m, PKGNOTE_KEY_VERSION) : "?");
                        fputs(", database ", f);
                        tool_print_escaped(f, pkgnote_scan_object_db_name(v[i]));
                        fputc(' ', f);
                        tool_print_escaped(f, pkgnote_scan_object_db_version(v[i]));
                        fputc('\n', f);
                }
        }
        free(v);
}

/* The installed packages of PT's roots that ship no scanned object
 * (those that do are in the coverage table): name, version, architecture. */
static void print_installed(FILE *f, const pkgnote_scan *s, const struct part *pt) {
        size_t n = 0, wn = 7, wv = 7;
        for (size_t i = 0; i < pkgnote_scan_db_package_count(s); i++) {
                const pkgnote_metadata *m = pkgnote_scan_db_package(s, i);
                if ((!pt->all && pkgnote_scan_db_package_image(s, i) != pt->image) || pkgnote_scan_db_package_object_count(s, i))
                        continue;
                size_t a = width(pkgnote_metadata_get(m, PKGNOTE_KEY_NAME)), b = width(pkgnote_metadata_get(m, PKGNOTE_KEY_VERSION));
                wn = a > wn ? a : wn;
                wv = b > wv ? b : wv;
                n++;
        }
        if (n == 0)
                return;
        fprintf(f, "\nInstalled packages that ship no ELF object or PE image (%zu):\n  ", n);
        pad(f, "PACKAGE", wn + 2);
        pad(f, "VERSION", wv + 2);
        fputs("ARCHITECTURE\n", f);
        for (size_t i = 0; i < pkgnote_scan_db_package_count(s); i++) {
                const pkgnote_metadata *m = pkgnote_scan_db_package(s, i);
                if ((!pt->all && pkgnote_scan_db_package_image(s, i) != pt->image) || pkgnote_scan_db_package_object_count(s, i))
                        continue;
                char *a = escaped(pkgnote_metadata_get(m, PKGNOTE_KEY_NAME)), *b = escaped(pkgnote_metadata_get(m, PKGNOTE_KEY_VERSION));
                fputs("  ", f);
                pad(f, a ? a : "?", wn + 2);
                pad(f, b ? b : "?", wv + 2);
                tool_print_escaped(f, pkgnote_metadata_get(m, PKGNOTE_KEY_ARCHITECTURE));
                fputc('\n', f);
                free(a);
                free(b);
        }
}

/* The totals of the scan. */
static void print_totals(FILE *f, const pkgnote_scan_stats *st, size_t images) {
        fprintf(f, "\nTotals:\n");
        if (images)
                fprintf(f, "  images                %zu\n", images);
        /* Objects are ELF files unless PE images were found: then the
         * line says how many of each. */
        char objects[128];
        if (st->pe_images)
                snprintf(objects, sizeof objects, "  objects               %llu (%llu ELF, %llu PE images)\n",
                         (unsigned long long)st->objects, (unsigned long long)(st->objects - st->pe_images),
                         (unsigned long long)st->pe_images);
        else
                snprintf(objects, sizeof objects, "  ELF objects           %llu\n", (unsigned long long)st->objects);
        fprintf(f,
                "  packages              %llu\n"
                "%s"
                "    with a package note %llu\n"
                "    without             %llu\n"
                "    malformed notes     %llu\n"
                "  regular files         %llu (%llu bytes)\n"
                "  directories           %llu\n"
                "  symbolic links        %llu (not followed)\n"
                "  special files         %llu (not opened)\n"
                "  unreadable            %llu\n",
                (unsigned long long)st->packages, objects,
                (unsigned long long)st->with_note, (unsigned long long)st->without_note,
                (unsigned long long)st->malformed, (unsigned long long)st->files, (unsigned long long)st->bytes,
                (unsigned long long)st->directories, (unsigned long long)st->symlinks,
                (unsigned long long)st->special, (unsigned long long)st->unreadable);
        if (st->other_fs)
                fprintf(f, "  other file systems    %llu (not entered)\n", (unsigned long long)st->other_fs);
        if (st->whited_out)
                fprintf(f, "  whited out            %llu (image layers)\n", (unsigned long long)st->whited_out);
}

/* The packages of PT and its objects without a note. */
static void print_part(FILE *f, const pkgnote_scan *s, const struct part *pt) {
        size_t w[NCOLS + 1] = {4, 2, 4, 7, 12, 7};
        size_t nr;
        struct row *rows = table_rows(s, pt, w, &nr);
        print_rows(f, rows, nr, w);
        for (size_t i = 0; i < nr; i++)
                for (int c = 0; c < NCOLS; c++)
                        free(rows[i].cell[c]);
        free(rows);
        print_without_note(f, s, pt);
        print_coverage(f, s, pt);
        print_installed(f, s, pt);
}

/* The heading of an image's part of the table. */
static void print_image_heading(FILE *f, const pkgnote_scan_image *im, bool first) {
        fputs(first ? "Image " : "\nImage ", f);
        tool_print_escaped(f, pkgnote_scan_image_reference(im));
        const char *sep = " (";
        if (pkgnote_scan_image_tag_count(im)) {
                fprintf(f, "%stags: ", sep);
                for (size_t t = 0; t < pkgnote_scan_image_tag_count(im); t++) {
                        fputs(t ? ", " : "", f);
                        tool_print_escaped(f, pkgnote_scan_image_tag(im, t));
                }
                sep = "; ";
        }
        if (pkgnote_scan_image_platform(im)) {
                fprintf(f, "%s", sep);
                tool_print_escaped(f, pkgnote_scan_image_platform(im));
                sep = "; ";
        }
        if (pkgnote_scan_image_id(im)) {
                fprintf(f, "%sid ", sep);
                tool_print_escaped(f, pkgnote_scan_image_id(im));
                sep = "; ";
        }
        fputs(*sep == ';' ? "):\n" : ":\n", f);
}

/* The table of packages and of the objects without a note (for each
 * image apart when there are images), then the totals. */
static void print_table(FILE *f, const pkgnote_scan *s) {
        size_t ni = pkgnote_scan_image_count(s);
        if (ni == 0)
                print_part(f, s, &(struct part){.all = true});
        for (size_t i = 0; i < ni; i++) {
                const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                print_image_heading(f, im, i == 0);
                print_part(f, s, &(struct part){.image = im});
        }
        bool loose = false; /* objects of inputs that are no image */
        for (size_t i = 0; ni && i < pkgnote_scan_object_count(s) && !loose; i++)
                loose = !pkgnote_scan_object_image(pkgnote_scan_object_get(s, i));
        if (loose) {
                fputs("\nNot in an image:\n", f);
                print_part(f, s, &(struct part){.image = NULL});
        }
        pkgnote_scan_stats st = {.size = sizeof st};
        pkgnote_scan_get_stats(s, &st);
        print_totals(f, &st, ni);
}

/* SIZE in bytes as a short human-readable figure. */
static const char *human(uint64_t size, char buf[32]) {
        static const char units[] = "kMGTPE";
        if (size < 1024) {
                snprintf(buf, 32, "%llu B", (unsigned long long)size);
                return buf;
        }
        double v = (double)size;
        int u = -1;
        while (v >= 1024 && u < 5)
                v /= 1024, u++;
        snprintf(buf, 32, v < 10 ? "%.1f %ciB" : "%.0f %ciB", v, units[u]);
        return buf;
}

/* The images of the inputs (scan --images): a table, or JSON lines. */
static void print_images(FILE *f, const pkgnote_scan *s, bool json, char **inputs) {
        size_t n = pkgnote_scan_image_count(s);
        if (json) {
                for (size_t i = 0; i < n; i++) {
                        const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                        char *j;
                        if (tool_put_json(f, pkgnote_scan_image_to_json(im, inputs[pkgnote_scan_image_input(im)], &j), &j) < 0)
                                return;
                }
                return;
        }
        if (n == 0) {
                fputs("No images found.\n", f);
                return;
        }
        size_t w[4] = {5, 4, 8, 6};
        char ***cells = calloc(n, sizeof *cells);
        for (size_t i = 0; cells && i < n; i++) {
                const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                char *tags = NULL, sz[32];
                size_t len = 0;
                FILE *t = open_memstream(&tags, &len);
                for (size_t k = 0; t && k < pkgnote_scan_image_tag_count(im); k++) {
                        fputs(k ? "," : "", t);
                        tool_print_escaped(t, pkgnote_scan_image_tag(im, k));
                }
                if (t)
                        fclose(t);
                if (!(cells[i] = calloc(4, sizeof **cells)))
                        break;
                cells[i][0] = escaped(pkgnote_scan_image_reference(im));
                cells[i][1] = tags && *tags ? tags : (free(tags), strdup("-"));
                cells[i][2] = escaped(pkgnote_scan_image_platform(im));
                cells[i][3] = strdup(human(pkgnote_scan_image_size(im), sz));
                for (int c = 0; c < 4; c++)
                        if (cells[i][c] && width(cells[i][c]) > w[c])
                                w[c] = width(cells[i][c]);
        }
        static const char *const heads[] = {"IMAGE", "TAGS", "PLATFORM", "SIZE"};
        for (int c = 0; c < 4; c++) {
                pad(f, heads[c], w[c]);
                fputs("  ", f);
        }
        fputs("LAYERS  DIGEST        ID\n", f);
        for (size_t i = 0; cells && i < n; i++) {
                const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                for (int c = 0; cells[i] && c < 4; c++) {
                        pad(f, cells[i][c] ? cells[i][c] : "?", w[c]);
                        fputs("  ", f);
                        free(cells[i][c]);
                }
                const char *id = pkgnote_scan_image_id(im), *digest = pkgnote_scan_image_digest(im);
                const char *ic = id ? strchr(id, ':') : NULL, *dc = digest ? strchr(digest, ':') : NULL;
                fprintf(f, "%6zu  %-12.12s  %.12s\n", pkgnote_scan_image_layer_count(im), dc ? dc + 1 : "-",
                        ic ? ic + 1 : "-");
                free(cells[i]);
        }
        free(cells);
}

static int print_json(FILE *f, const pkgnote_scan *s, char **inputs) {
        char *j;
        int r = 0;
        for (size_t i = 0; r >= 0 && i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *o = pkgnote_scan_object_get(s, i);
                r = tool_put_json(f, pkgnote_scan_object_to_json(o, inputs[pkgnote_scan_object_input(o)], &j), &j);
        }
        /* Then every installed package of the roots' databases. */
        for (size_t i = 0; r >= 0 && i < pkgnote_scan_db_package_count(s); i++)
                r = tool_put_json(f, pkgnote_scan_db_package_to_json(s, i, &j), &j);
        return r < 0 ? r : tool_put_json(f, pkgnote_scan_summary_to_json(s, &j), &j);
}

/* Writes the report to the output: standard output, or a temporary file
 * beside FILE renamed over it once complete. */
static int write_report(const struct scan_opts *o, const pkgnote_scan *s) {
        char *sbom = NULL;
        if (!o->images && (o->format == FMT_SPDX || o->format == FMT_SPDX3 || o->format == FMT_CYCLONEDX)) {
                pkgnote_sbom_options so;
                if (tool_sbom_options("scan", o->n_inputs == 1 ? o->inputs[0] : NULL, &so) < 0)
                        return EXIT_FAILURE_;
                int fmt = o->format == FMT_SPDX ? PKGNOTE_SBOM_SPDX : o->format == FMT_SPDX3 ? PKGNOTE_SBOM_SPDX_3 : o->cyclonedx;
                int r = pkgnote_sbom_write(s, fmt, &so, &sbom);
                if (r < 0)
                        return tool_error(o->output ? o->output : "-", "cannot write the SBOM", r);
        }
        const char *name = o->output ? o->output : "-";
        pn_output out;
        FILE *f = NULL;
        char why[300] = "";
        int r = pn_output_open(&out, AT_FDCWD, name, PN_OUT_FOLLOW | PN_OUT_STDIO);
        if (r < 0) {
                free(sbom);
                return tool_error_shared(name, "cannot write the report", r);
        }
        /* The stream has a descriptor of its own: the output keeps its
         * own open for the commit, which syncs the file. */
        int fd = -1;
        bool own = out.borrowed && out.fd == STDOUT_FILENO;
        if (!own && ((fd = dup(out.fd)) < 0 || !(f = fdopen(fd, "w")))) {
                r = -errno;
                snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
                if (fd >= 0)
                        close(fd);
        } else if (own)
                f = stdout;
        if (r < 0) {
                free(sbom);
                pn_output_abort(&out);
                return tool_error_reason(name, "cannot write the report", why);
        }
        if (o->images)
                print_images(f, s, o->format == FMT_JSON, o->inputs);
        else if (sbom) {
                fputs(sbom, f);
                fputc('\n', f);
        } else if (o->format == FMT_JSON && (r = print_json(f, s, o->inputs)) < 0) {
                /* The library's failure, told by the library. */
                const char *detail = pkgnote_last_error();
                snprintf(why, sizeof why, "%s", *detail ? detail : strerror(-r));
        } else if (o->format != FMT_JSON)
                print_table(f, s);
        free(sbom);
        if ((fflush(f) != 0 || ferror(f)) && !why[0]) {
                r = -errno;
                snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
        }
        if (f != stdout && fclose(f) != 0 && r == 0) {
                r = -errno;
                snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
        }
        if (r == 0)
                r = pn_output_commit(&out);
        else
                pn_output_abort(&out);
        if (r < 0 && why[0])
                return tool_error_reason(name, "cannot write the report", why);
        return r < 0 ? tool_error_shared(name, "cannot write the report", r) : EXIT_OK;
}

static void scan_help(void) {
        printf("Usage: pkgnote scan [--format table|json|spdx|spdx3|cyclonedx] [-o FILE] [--one-file-system]\n"
               "                    [--image IMAGE] [--platform OS/ARCH[/VARIANT]] PATH...\n"
               "\n"
               "Inventory the ELF objects, PE images and package notes of directory trees,\n"
               "files, tar and cpio archives of root filesystems, 'docker save' archives,\n"
               "OCI image layouts (directory or tar), and packages as shipped: .deb, .udeb,\n"
               ".rpm, .apk, wheels and zips, .conda, initramfs images, ISO 9660, SquashFS (told by\n"
               "content; archives inside them opened too).  Images are reported as their\n"
               "merged filesystem.  Symbolic links inside trees are never followed; a PATH that\n"
               "is one is.  PATH '-' reads an archive from standard input.  PATH may name\n"
               "an image as skopeo does: oci:DIR[:TAG|@DIGEST], oci-archive:FILE[:TAG],\n"
               "docker-archive:FILE[:REPO:TAG|:@N], and the images of a local podman,\n"
               "buildah or CRI-O store: containers-storage:[[DRIVER@]ROOT]NAME[:TAG]|ID\n"
               "(vfs and overlay drivers; the store alone: every image).  Without a tag,\n"
               "every image of a layout, archive or store is reported, each labelled.\n"
               "\n"
               "  -f, --format FORMAT    table (default), json (one object per line and a\n"
               "                         summary line), spdx (SPDX 2.3), spdx3 (SPDX 3.0.1\n"
               "                         JSON-LD), cyclonedx (1.6)\n"
               "      --cyclonedx-version 1.6|1.7|1.5\n"
               "                         the CycloneDX version written (default 1.6)\n"
               "  -o, --output FILE      write the report to FILE instead of standard output\n"
               "  -x, --one-file-system  do not enter directories on other file systems\n"
               "  -j, --threads N        worker threads (default: one per CPU)\n"
               "      --image IMAGE      the image of a layout or archive holding several:\n"
               "                         TAG, REPO:TAG, @DIGEST or @N (the Nth, from 0)\n"
               "      --platform OS/ARCH[/VARIANT]\n"
               "                         of a multi-platform image (default: this machine's)\n"
               "      --images           list the images of each PATH (reference, tags,\n"
               "                         platform, size, layers, id) instead of scanning them\n"
               "      --verify-layers    check each image layer against its digest (indexes,\n"
               "                         manifests and configurations are always checked)\n"
               "      --max-bytes SIZE   what one PATH may decompress to, archives inside it\n"
               "                         included (default 64G; K, M, G, T suffixes)\n"
               "      --open-archives    in directory trees, open every archive (tars, zips,\n"
               "                         wheels, jars, .apk, cpio), not only .deb and .rpm\n"
               "      --fail-on-missing  exit with status 1 when an executable or shared\n"
               "                         object lacks a package note (in a root with a\n"
               "                         package database: one that a package ships)\n"
               "      --progress / --no-progress\n"
               "                         progress line on standard error (default: when it\n"
               "                         is a terminal)\n"
               "  -h, --help             show this help\n"
               "\n"
               "SOURCE_DATE_EPOCH, when set, fixes the SBOM creation time and makes its\n"
               "namespace or serial number reproducible.\n"
               "\n"
               "Exit status: 0 everything was read, 1 some files could not be read or\n"
               "hold malformed notes, or (--fail-on-missing) lack a note (they are named\n"
               "on standard error), 2 a PATH could not be scanned or the report not written.\n");
}

int cmd_scan(int argc, char **argv) {
        enum { OPT_PROGRESS = 0x100, OPT_NO_PROGRESS, OPT_IMAGE, OPT_PLATFORM, OPT_IMAGES, OPT_VERIFY_LAYERS, OPT_MAX_BYTES,
               OPT_FAIL_ON_MISSING, OPT_OPEN_ARCHIVES, OPT_CYCLONEDX_VERSION };
        static const struct option longopts[] = {
                {"format", required_argument, NULL, 'f'},
                {"output", required_argument, NULL, 'o'},
                {"one-file-system", no_argument, NULL, 'x'},
                {"threads", required_argument, NULL, 'j'},
                {"progress", no_argument, NULL, OPT_PROGRESS},
                {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
                {"image", required_argument, NULL, OPT_IMAGE},
                {"platform", required_argument, NULL, OPT_PLATFORM},
                {"images", no_argument, NULL, OPT_IMAGES},
                {"verify-layers", no_argument, NULL, OPT_VERIFY_LAYERS},
                {"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
                {"fail-on-missing", no_argument, NULL, OPT_FAIL_ON_MISSING},
                {"open-archives", no_argument, NULL, OPT_OPEN_ARCHIVES},
                {"cyclonedx-version", required_argument, NULL, OPT_CYCLONEDX_VERSION},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct scan_opts o = {.format = FMT_TABLE, .progress = -1, .cyclonedx = PKGNOTE_SBOM_CYCLONEDX};
        int c;
        while ((c = tool_getopt(argc, argv, "f:o:xj:h", longopts)) >= 0)
                switch (c) {
                case 'f':
                        if (!strcmp(optarg, "table"))
                                o.format = FMT_TABLE;
                        else if (!strcmp(optarg, "json"))
                                o.format = FMT_JSON;
                        else if (!strcmp(optarg, "spdx") || !strcmp(optarg, "spdx-json"))
                                o.format = FMT_SPDX;
                        else if (!strcmp(optarg, "spdx3") || !strcmp(optarg, "spdx3-json"))
                                o.format = FMT_SPDX3;
                        else if (!strcmp(optarg, "cyclonedx") || !strcmp(optarg, "cyclonedx-json"))
                                o.format = FMT_CYCLONEDX;
                        else
                                return tool_fail("scan: unknown format '%s' (table, json, spdx, spdx3, cyclonedx)", optarg);
                        break;
                case 'o': o.output = optarg; break;
                case 'x': o.flags |= PKGNOTE_SCAN_ONE_FILE_SYSTEM; break;
                case 'j': {
                        char *end;
                        long n = strtol(optarg, &end, 10);
                        if (*end || n < 1 || n > 64)
                                return tool_fail("scan: --threads takes a number from 1 to 64");
                        o.threads = (unsigned)n;
                        break;
                }
                case OPT_PROGRESS: o.progress = 1; break;
                case OPT_NO_PROGRESS: o.progress = 0; break;
                case OPT_IMAGE: o.image = optarg; break;
                case OPT_PLATFORM: o.platform = optarg; break;
                case OPT_IMAGES: o.images = true; break;
                case OPT_CYCLONEDX_VERSION:
                        if (tool_parse_cyclonedx_version("scan", optarg, &o.cyclonedx) < 0)
                                return EXIT_FAILURE_;
                        break;
                case OPT_VERIFY_LAYERS: o.flags |= PKGNOTE_SCAN_VERIFY_LAYERS; break;
                case OPT_MAX_BYTES:
                        if (tool_parse_size(optarg, &o.max_bytes) < 0 || o.max_bytes == 0)
                                return tool_fail("scan: --max-bytes: '%s' is not a size (bytes, or with K, M, G, T)", optarg);
                        break;
                case OPT_FAIL_ON_MISSING: o.fail_on_missing = true; break;
                case OPT_OPEN_ARCHIVES: o.flags |= PKGNOTE_SCAN_OPEN_ARCHIVES; break;
                case 'h': scan_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (optind >= argc)
                return tool_fail("scan: no PATH given (see 'pkgnote scan --help')");
        o.inputs = argv + optind;
        o.n_inputs = argc - optind;
        if (o.images && o.format != FMT_TABLE && o.format != FMT_JSON)
                return tool_fail("scan: --images lists images as a table or JSON, not an SBOM");
        if (o.images)
                o.flags |= PKGNOTE_SCAN_LIST_IMAGES;
        if (o.format == FMT_SPDX || o.format == FMT_SPDX3)
                o.flags |= PKGNOTE_SCAN_CHECKSUMS; /* SPDX files need them */
        if (o.format == FMT_SPDX || o.format == FMT_SPDX3 || o.format == FMT_CYCLONEDX)
                o.flags |= PKGNOTE_SCAN_DEPENDENCIES; /* relations between packages */
        if (o.progress < 0)
                o.progress = isatty(STDERR_FILENO);

        pkgnote_scan_options so = {.size = sizeof so, .flags = o.flags, .threads = o.threads, .max_bytes = o.max_bytes};
        if (o.progress)
                so.progress = show_progress;
        pkgnote_scan *s;
        int r = pkgnote_scan_new(&so, &s);
        if (r < 0)
                return tool_error("scan", "cannot start", r);
        if (o.platform && (r = pkgnote_scan_set_platform(s, o.platform)) < 0) {
                pkgnote_scan_free(s);
                return tool_error("scan", "--platform", r);
        }
        int ret = EXIT_OK;
        for (int i = 0; i < o.n_inputs; i++) {
                r = pkgnote_scan_add_image(s, o.inputs[i], o.image);
                if (r < 0) {
                        clear_progress();
                        tool_error(o.inputs[i], "cannot scan", r);
                        ret = EXIT_FAILURE_;
                } else if (o.images && r != PKGNOTE_SCAN_INPUT_DOCKER && r != PKGNOTE_SCAN_INPUT_OCI &&
                           r != PKGNOTE_SCAN_INPUT_STORAGE) {
                        clear_progress();
                        tool_fail("'%s': holds no image", o.inputs[i]);
                        ret = EXIT_FAILURE_;
                }
        }
        clear_progress();
        for (size_t i = 0; i < pkgnote_scan_problem_count(s); i++) {
                const pkgnote_problem *p = pkgnote_scan_problem(s, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
                if (ret == EXIT_OK)
                        ret = EXIT_NOTFOUND;
        }
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                for (size_t k = 0; k < pkgnote_scan_object_problem_count(ob); k++) {
                        tool_warn_ignoring(pkgnote_scan_object_path(ob), pkgnote_scan_object_problem(ob, k)->message);
                        if (ret == EXIT_OK)
                                ret = EXIT_NOTFOUND;
                }
        }
        size_t missing = 0;
        for (size_t i = 0; o.fail_on_missing && i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                if (pkgnote_scan_object_package_count(ob) || !wants_note(ob))
                        continue;
                missing++;
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, pkgnote_scan_object_path(ob));
                fputs("': no package note", stderr);
                if (pkgnote_scan_object_db_name(ob)) {
                        fputs(" (package ", stderr);
                        tool_print_escaped(stderr, pkgnote_scan_object_db_name(ob));
                        fputc(')', stderr);
                }
                fputc('\n', stderr);
        }
        if (missing && ret == EXIT_OK)
                ret = EXIT_NOTFOUND;
        r = write_report(&o, s);
        pkgnote_scan_free(s);
        return r != EXIT_OK ? r : ret;
}
