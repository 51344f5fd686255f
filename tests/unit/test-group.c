/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crash groups (lib/11-crash-group.c) over a real crash store: a
 * directory of pkgnote-coredump's entries (a report in the form
 * pkgnote_crash_report() writes, and a core file beside it), listed by
 * pkgnote_crashes_load() and fed to the accumulator one crash at a time.
 * The version counted is the faulting package's; machines by machine ID;
 * boots; "not seen since"; the order; the example; the limits on what a
 * group holds; adding after reading; the JSON document.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pkgnote.h"
#include "testlib.h"

static char dir[] = "/tmp/test-group.XXXXXX";
static int pid = 100;

/* One crash of "app": the stack of its report runs through FN (in the
 * module of package FAULT_PKG at version FAULT_VER, NULL: in app's own
 * module) into main; no stack when FN is NULL. */
struct spec {
        int64_t time;
        const char *fn, *fault_pkg, *fault_ver;
        const char *exe_ver; /* app's version */
        const char *machine, *host, *boot;
        const char *exe; /* NULL: /usr/bin/app */
};

static void store(const struct spec *s) {
        json_t *frames = json_array(), *modules = json_array();
        json_t *app = json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:s}]}", "start", "0x1000", "end", "0x2000", "path",
                                "/usr/bin/app", "buildId", "aa", "packages", "name", "app", "version", s->exe_ver);
        json_array_append_new(modules, app);
        if (s->fn) {
                bool lib = s->fault_pkg != NULL;
                if (lib)
                        json_array_append_new(modules,
                                              json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:s}]}", "start", "0x7000", "end",
                                                        "0x8000", "path", "/usr/lib/libfoo.so.1", "buildId", "bb",
                                                        "packages", "name", s->fault_pkg, "version", s->fault_ver));
                json_array_append_new(frames, json_pack("{s:s, s:s, s:s, s:s}", "pc", lib ? "0x7010" : "0x1010",
                                                        "moduleOffset", "0x10", "function", s->fn, "module",
                                                        lib ? "libfoo.so.1" : "app"));
                json_array_append_new(frames, json_pack("{s:s, s:s, s:s, s:s}", "pc", "0x1100", "moduleOffset", "0x100",
                                                        "function", "main", "module", "app"));
        }
        json_t *r = json_pack("{s:I, s:i, s:i, s:i, s:s, s:{s:s, s:s}, s:o, s:[{s:o}], s:s, s:s}", "time",
                              (json_int_t)s->time, "pid", pid, "uid", 1000, "signal", 11, "executable",
                              s->exe ? s->exe : "/usr/bin/app", "package", "name", "app", "version", s->exe_ver,
                              "modules", modules, "threads", "frames", frames, "hostname", s->host, "bootId", s->boot);
        CHECK(r != NULL);
        if (s->machine)
                json_object_set_new(r, "machineId", json_string(s->machine));
        char name[512];
        snprintf(name, sizeof name, "%s/core.app.1000.%d.%lld.json", dir, pid, (long long)s->time);
        CHECK_INT(json_dump_file(r, name, JSON_COMPACT), 0);
        json_decref(r);
        snprintf(name, sizeof name, "%s/core.app.1000.%d.%lld%s", dir, pid, (long long)s->time,
                 pkgnote_crash_core_suffix());
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0);
        CHECK_INT(write(fd, "core", 4), 4);
        close(fd);
        pid++;
}

static void empty_store(void) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -f %s/core.*", dir);
        CHECK_INT(system(cmd), 0);
}

/* The groups of the store by BY. */
static pkgnote_crash_groups *groups(int by) {
        pkgnote_crash_options o = PKGNOTE_CRASH_OPTIONS_INIT;
        o.stores = PKGNOTE_CRASH_STORE_PKGNOTE;
        o.pkgnote_dir = dir;
        pkgnote_crashes *l = NULL;
        pkgnote_crash_groups *g = NULL;
        CHECK_INT(pkgnote_crashes_load(&o, &l), 0);
        CHECK_INT(pkgnote_crashes_problem_count(l), 0);
        CHECK_INT(pkgnote_crash_groups_new(by, &g), 0);
        for (size_t i = 0; g && i < pkgnote_crashes_count(l); i++)
                CHECK_INT(pkgnote_crash_groups_add(g, pkgnote_crashes_get(l, i)), 0);
        pkgnote_crashes_free(l);
        return g;
}

static const pkgnote_crash_group *find(pkgnote_crash_groups *g, const char *key) {
        for (size_t i = 0;; i++) {
                const pkgnote_crash_group *grp = pkgnote_crash_groups_get(g, i);
                if (!grp || !strcmp(pkgnote_crash_group_key(grp), key))
                        return grp;
        }
}

#define DAY 86400
#define T0 1733400000

static void fill(void) {
        empty_store();
        /* a bug in libfoo (faulting there: its version counts), on two
         * machines, three boots; libfoo 2.0 then 2.1 */
        store(&(struct spec){T0, "foo_parse", "foo", "2.0", "1.0", "m1", "h1", "b1", NULL});
        store(&(struct spec){T0 + 10, "foo_parse", "foo", "2.0", "1.0", "m1", "h1", "b1", NULL});
        store(&(struct spec){T0 + DAY, "foo_parse", "foo", "2.0", "1.0", "m2", "h2", "b2", NULL});
        store(&(struct spec){T0 + 3 * DAY, "foo_parse", "foo", "2.1", "1.0", "m1", "h1-renamed", "b3", NULL});
        /* a bug of app itself, fixed in app 1.1 (first seen on day 2) */
        store(&(struct spec){T0 + 5, "app_run", NULL, NULL, "1.0", "m1", "h1", "b1", NULL});
        store(&(struct spec){T0 + 20, "app_run", NULL, NULL, "1.0", "m2", "h2", "b2", NULL});
        store(&(struct spec){T0 + 2 * DAY, "other", NULL, NULL, "1.1", "m2", "h2", "b2", NULL});
        /* no stack at all */
        store(&(struct spec){T0 + 30, NULL, NULL, NULL, "1.0", NULL, "h9", "b9", NULL});
}

static void test_signature_groups(void) {
        fill();
        pkgnote_crash_groups *g = groups(PKGNOTE_GROUP_SIGNATURE);
        pkgnote_crash_groups_stats st = PKGNOTE_CRASH_GROUPS_STATS_INIT;
        CHECK_INT(pkgnote_crash_groups_get_stats(g, &st), 0);
        CHECK_INT(st.by, PKGNOTE_GROUP_SIGNATURE);
        CHECK_INT(st.crashes, 8);
        CHECK_INT(st.groups, 4);
        CHECK_INT(st.machines, 3); /* m1, m2, and h9 by its host name */
        CHECK_INT(st.first, T0);
        CHECK_INT(st.last, T0 + 3 * DAY);

        /* sorted by count, then last crash */
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 0)), "foo: foo_parse | main");
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 1)), "app: app_run | main");
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 2)), "app: other | main");
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 3)), "app: ?");
        CHECK(pkgnote_crash_groups_get(g, 4) == NULL);

        const pkgnote_crash_group *foo = pkgnote_crash_groups_get(g, 0);
        CHECK_STR(pkgnote_crash_group_package(foo), "foo");
        CHECK(pkgnote_crash_group_hash(foo) && strlen(pkgnote_crash_group_hash(foo)) == 16);
        CHECK_INT(pkgnote_crash_group_count(foo), 4);
        CHECK_INT(pkgnote_crash_group_first(foo), T0);
        CHECK_INT(pkgnote_crash_group_last(foo), T0 + 3 * DAY);
        CHECK_INT(pkgnote_crash_group_boots(foo), 3);
        /* the faulting package's versions, not app's */
        CHECK_INT(pkgnote_crash_group_version_count(foo), 2);
        pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
        CHECK_INT(pkgnote_crash_group_version(foo, 0, &it), 1);
        CHECK_STR(it.name, "2.0");
        CHECK_INT(it.count, 3);
        CHECK_INT(it.first, T0);
        CHECK_INT(it.last, T0 + DAY);
        CHECK_INT(pkgnote_crash_group_version(foo, 1, &it), 1);
        CHECK_STR(it.name, "2.1");
        CHECK_INT(pkgnote_crash_group_version(foo, 2, &it), 0);
        CHECK(pkgnote_crash_group_not_seen_since(foo) == NULL);
        /* machines by machine ID, by count; the host name first recorded */
        CHECK_INT(pkgnote_crash_group_machine_count(foo), 2);
        CHECK_INT(pkgnote_crash_group_machine(foo, 0, &it), 1);
        CHECK_STR(it.name, "m1");
        CHECK_STR(it.hostname, "h1");
        CHECK_INT(it.count, 3);
        CHECK_INT(it.last, T0 + 3 * DAY);
        CHECK_INT(pkgnote_crash_group_machine(foo, 1, &it), 1);
        CHECK_STR(it.name, "m2");
        CHECK_INT(it.count, 1);
        /* the example: the latest */
        CHECK(strstr(pkgnote_crash_group_example_id(foo), "." "1733659200") != NULL);

        const pkgnote_crash_group *run = find(g, "app: app_run | main");
        CHECK_STR(pkgnote_crash_group_not_seen_since(run), "1.1");
        CHECK_INT(pkgnote_crash_group_version_count(run), 1);
        CHECK_INT(pkgnote_crash_group_version(run, 0, &it), 1);
        CHECK_STR(it.name, "1.0");
        CHECK_INT(it.count, 2);
        CHECK(pkgnote_crash_group_not_seen_since(find(g, "app: other | main")) == NULL);

        const pkgnote_crash_group *none = find(g, "app: ?");
        CHECK(pkgnote_crash_group_hash(none) == NULL);
        CHECK_STR(pkgnote_crash_group_package(none), "app");
        CHECK_INT(pkgnote_crash_group_machine(none, 0, &it), 1);
        CHECK(it.name == NULL);
        CHECK_STR(it.hostname, "h9");
        /* not seen since 1.1, which shipped after its one crash */
        CHECK_STR(pkgnote_crash_group_not_seen_since(none), "1.1");

        /* an item struct of an older, shorter size: nothing past it */
        unsigned char buf[sizeof(pkgnote_crash_group_item)];
        size_t short_size = offsetof(pkgnote_crash_group_item, hostname);
        test_short_struct(buf, sizeof buf, short_size);
        CHECK_INT(pkgnote_crash_group_machine(foo, 0, (pkgnote_crash_group_item *)buf), 1);
        CHECK(test_short_struct_kept(buf, sizeof buf, short_size));
        CHECK_STR(((pkgnote_crash_group_item *)buf)->name, "m1");
        pkgnote_crash_groups_free(g);
}

static void test_json(void) {
        fill();
        pkgnote_crash_groups *g = groups(PKGNOTE_GROUP_SIGNATURE);
        char *s = NULL;
        CHECK_INT(pkgnote_crash_groups_to_json(g, 2, &s), 0);
        static const char prefix[] = "{\"groupBy\":\"signature\",\"crashes\":8,\"groupCount\":4,\"machineCount\":3,"
                                     "\"first\":1733400000,\"last\":1733659200,\"groups\":[{\"key\":\"foo: foo_parse | "
                                     "main\",\"hash\":\"";
        CHECK(s && !strncmp(s, prefix, strlen(prefix)));
        if (s && strncmp(s, prefix, strlen(prefix)))
                fprintf(stderr, "%.300s\n", s);
        json_t *j = s ? json_loads(s, 0, NULL) : NULL;
        free(s);
        json_t *gs = json_object_get(j, "groups");
        CHECK_INT(json_array_size(gs), 2);
        json_t *foo = json_array_get(gs, 0);
        CHECK_STR(json_string_value(json_object_get(foo, "package")), "foo");
        CHECK_INT(json_integer_value(json_object_get(foo, "boots")), 3);
        json_t *days = json_object_get(foo, "days");
        CHECK_INT(json_array_size(days), 3);
        CHECK_STR(json_string_value(json_object_get(json_array_get(days, 0), "day")), "2024-12-05");
        CHECK_STR(json_string_value(json_object_get(json_array_get(days, 0), "version")), "2.0");
        CHECK_INT(json_integer_value(json_object_get(json_array_get(days, 0), "count")), 2);
        CHECK_STR(json_string_value(json_object_get(json_array_get(days, 2), "day")), "2024-12-08");
        CHECK_STR(json_string_value(json_object_get(json_array_get(days, 2), "version")), "2.1");
        json_t *ex = json_object_get(foo, "example");
        CHECK_INT(json_integer_value(json_object_get(ex, "time")), T0 + 3 * DAY);
        CHECK_STR(json_string_value(json_object_get(ex, "signature")), "foo: foo_parse | main");
        CHECK_STR(json_string_value(json_object_get(ex, "core")), "file");
        json_t *run = json_array_get(gs, 1);
        CHECK_STR(json_string_value(json_object_get(run, "notSeenSince")), "1.1");
        CHECK(json_object_get(foo, "notSeenSince") == NULL);
        json_t *m = json_array_get(json_object_get(foo, "machines"), 0);
        CHECK_STR(json_string_value(json_object_get(m, "machineId")), "m1");
        CHECK_STR(json_string_value(json_object_get(m, "hostname")), "h1");
        json_decref(j);
        pkgnote_crash_groups_free(g);

        /* no crash: first and last are null */
        CHECK_INT(pkgnote_crash_groups_new(PKGNOTE_GROUP_PACKAGE, &g), 0);
        CHECK_INT(pkgnote_crash_groups_to_json(g, 0, &s), 0);
        CHECK_STR(s, "{\"groupBy\":\"package\",\"crashes\":0,\"groupCount\":0,\"machineCount\":0,\"first\":null,"
                     "\"last\":null,\"groups\":[]}");
        free(s);
        pkgnote_crash_groups_free(g);
}

static void test_package_and_executable(void) {
        fill();
        store(&(struct spec){T0 + 40, NULL, NULL, NULL, "1.0", "m3", "h3", "b4", "/opt/tool"});
        pkgnote_crash_groups *g = groups(PKGNOTE_GROUP_PACKAGE);
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 0)), "app");
        CHECK_INT(pkgnote_crash_group_count(pkgnote_crash_groups_get(g, 0)), 5);
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 1)), "foo");
        CHECK_INT(pkgnote_crash_group_count(pkgnote_crash_groups_get(g, 1)), 4);
        CHECK(pkgnote_crash_group_hash(pkgnote_crash_groups_get(g, 0)) == NULL);
        pkgnote_crash_groups_free(g);

        g = groups(PKGNOTE_GROUP_EXECUTABLE);
        const pkgnote_crash_group *app = pkgnote_crash_groups_get(g, 0);
        CHECK_STR(pkgnote_crash_group_key(app), "/usr/bin/app");
        CHECK_INT(pkgnote_crash_group_count(app), 8);
        /* the executable's package versions, whatever faulted */
        pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
        CHECK_INT(pkgnote_crash_group_version_count(app), 2);
        CHECK_INT(pkgnote_crash_group_version(app, 0, &it), 1);
        CHECK_STR(it.name, "1.0");
        CHECK_INT(it.count, 7);
        CHECK_STR(pkgnote_crash_group_key(pkgnote_crash_groups_get(g, 1)), "/opt/tool");
        pkgnote_crash_groups_free(g);
}

/* Reading the groups sorts them; crashes added afterwards land in the
 * right groups and items still. */
static void test_add_after_reading(void) {
        fill();
        pkgnote_crash_groups *g = groups(PKGNOTE_GROUP_SIGNATURE);
        char *s = NULL;
        CHECK_INT(pkgnote_crash_groups_to_json(g, 0, &s), 0);
        free(s);
        /* the same crashes once more: app's bug overtakes none, counts double */
        pkgnote_crash_options o = PKGNOTE_CRASH_OPTIONS_INIT;
        o.pkgnote_dir = dir;
        o.stores = PKGNOTE_CRASH_STORE_PKGNOTE;
        pkgnote_crashes *l = NULL;
        CHECK_INT(pkgnote_crashes_load(&o, &l), 0);
        for (size_t i = pkgnote_crashes_count(l); i-- > 0;)
                CHECK_INT(pkgnote_crash_groups_add(g, pkgnote_crashes_get(l, i)), 0);
        pkgnote_crashes_free(l);
        const pkgnote_crash_group *foo = find(g, "foo: foo_parse | main");
        CHECK_INT(pkgnote_crash_group_count(foo), 8);
        CHECK_INT(pkgnote_crash_group_version_count(foo), 2);
        CHECK_INT(pkgnote_crash_group_machine_count(foo), 2);
        CHECK_INT(pkgnote_crash_group_boots(foo), 3);
        pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
        CHECK_INT(pkgnote_crash_group_version(foo, 0, &it), 1);
        CHECK_STR(it.name, "2.0");
        CHECK_INT(it.count, 6);
        CHECK_INT(pkgnote_crash_group_machine(foo, 0, &it), 1);
        CHECK_STR(it.name, "m1");
        CHECK_INT(it.count, 6);
        CHECK_INT(pkgnote_crash_group_count(find(g, "app: ?")), 2);
        pkgnote_crash_groups_stats st = PKGNOTE_CRASH_GROUPS_STATS_INIT;
        CHECK_INT(pkgnote_crash_groups_get_stats(g, &st), 0);
        CHECK_INT(st.crashes, 16);
        CHECK_INT(st.groups, 4);
        pkgnote_crash_groups_free(g);
}

/* What a group holds is bounded: more machines and versions than the
 * limits are all counted, but listed only up to them. */
static void test_limits(void) {
        empty_store();
        char id[64], ver[32];
        for (unsigned i = 0; i < PKGNOTE_MAX_GROUP_MACHINES + 6; i++) {
                snprintf(id, sizeof id, "%032x", i);
                snprintf(ver, sizeof ver, "1.%u", i % (PKGNOTE_MAX_GROUP_VERSIONS + 3));
                store(&(struct spec){T0 + i, "app_run", NULL, NULL, ver, id, "h", id, NULL});
        }
        pkgnote_crash_groups *g = groups(PKGNOTE_GROUP_SIGNATURE);
        const pkgnote_crash_group *grp = pkgnote_crash_groups_get(g, 0);
        CHECK_INT(pkgnote_crash_group_count(grp), PKGNOTE_MAX_GROUP_MACHINES + 6);
        CHECK_INT(pkgnote_crash_group_machine_count(grp), PKGNOTE_MAX_GROUP_MACHINES);
        CHECK_INT(pkgnote_crash_group_version_count(grp), PKGNOTE_MAX_GROUP_VERSIONS);
        CHECK_INT(pkgnote_crash_group_boots(grp), PKGNOTE_MAX_GROUP_MACHINES + 6);
        pkgnote_crash_groups_stats st = PKGNOTE_CRASH_GROUPS_STATS_INIT;
        CHECK_INT(pkgnote_crash_groups_get_stats(g, &st), 0);
        CHECK_INT(st.machines, PKGNOTE_MAX_GROUP_MACHINES + 6);
        pkgnote_crash_groups_free(g);
        empty_store();
}

static void test_bad(void) {
        pkgnote_crash_groups *g = NULL;
        CHECK_INT(pkgnote_crash_groups_new(4, &g), -EINVAL);
        CHECK(g == NULL);
        CHECK_INT(pkgnote_crash_group_by_from_name("signature"), PKGNOTE_GROUP_SIGNATURE);
        CHECK_INT(pkgnote_crash_group_by_from_name("executable"), PKGNOTE_GROUP_EXECUTABLE);
        CHECK_INT(pkgnote_crash_group_by_from_name("Signature"), -EINVAL);
        CHECK_INT(pkgnote_crash_group_by_from_name(NULL), -EINVAL);
        CHECK(pkgnote_crash_group_by_name(0) == NULL);
        CHECK_INT(pkgnote_crash_groups_new(PKGNOTE_GROUP_PACKAGE, &g), 0);
        CHECK_INT(pkgnote_crash_groups_add(g, NULL), -EINVAL);
        pkgnote_crash_groups_stats st = {.size = 1};
        CHECK_INT(pkgnote_crash_groups_get_stats(g, &st), -EINVAL);
        CHECK(pkgnote_crash_groups_get(g, 0) == NULL);
        pkgnote_crash_groups_free(g);
        pkgnote_crash_groups_free(NULL);
}

int main(void) {
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 99;
        }
        RUN(test_signature_groups);
        RUN(test_json);
        RUN(test_package_and_executable);
        RUN(test_add_after_reading);
        RUN(test_limits);
        RUN(test_bad);
        empty_store();
        rmdir(dir);
        return test_summary();
}
