/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The C half of the Python binding: thin calls of libpkgnote's public API
 * (include/pkgnote.h alone; the build gives this file no other include
 * directory).  Reports come from the library's own JSON serializers, so
 * that the binding states exactly the facts "pkgnote show --json" and
 * "pkgnote core --json" state; pkgnote/__init__.py turns them into
 * objects.  Everything handed to Python is a copy: nothing refers to a
 * library object after the call that made it, which is what keeps every
 * result valid after its core, process, file or scan is closed.
 *
 * The GIL is released around every library call that reads files, cores,
 * processes or trees; such a block touches no Python object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pkgnote.h>

/* Everything the module keeps lives in its state (PEP 489, PEP 630),
 * one per module object: no C global holds a Python object, so that each
 * (sub)interpreter, and each module object loaded by importlib, has its
 * own exception classes, scan type and json.loads.  Module functions
 * reach it through the module they are bound to, the scan's methods
 * through the module of their type (ScanObject's type holds the module
 * as long as any scan of it lives). */
typedef struct modstate {
        PyObject *json_loads;
        PyObject *Error, *NotFoundError, *PermissionDeniedError;
        PyTypeObject *ScanType;
} modstate;

static struct PyModuleDef module;

static modstate *module_state(PyObject *m) { return PyModule_GetState(m); }

/* The state of the module that defined TYPE (which may be a subclass). */
static modstate *type_state(PyTypeObject *type) {
        PyObject *m = PyType_GetModuleByDef(type, &module);
        return m ? module_state(m) : NULL;
}

/* The reason of a failed call, taken in the thread that made it and
 * before any other call into the library replaces it. */
typedef struct failure {
        int error;
        char message[512];
} failure;

static void failure_set(failure *f, int r) {
        const char *m = pkgnote_last_error();
        f->error = r < 0 ? -r : r;
        snprintf(f->message, sizeof f->message, "%s", m && *m ? m : strerror(f->error));
}

/* Raises the exception for F: FileNotFoundError and PermissionError
 * (as pkgnote.Error subclasses) where they apply, else pkgnote.Error. */
static PyObject *raise_failure(modstate *ms, const failure *f, PyObject *filename) {
        PyObject *cls = f->error == ENOENT                         ? ms->NotFoundError
                        : f->error == EACCES || f->error == EPERM ? ms->PermissionDeniedError
                                                                  : ms->Error;
        PyObject *e = filename ? PyObject_CallFunction(cls, "isO", f->error, f->message, filename)
                               : PyObject_CallFunction(cls, "is", f->error, f->message);
        if (e) {
                PyErr_SetObject(cls, e);
                Py_DECREF(e);
        }
        return NULL;
}

/* raise_failure() naming the file by its path as converted by
 * PyUnicode_FSConverter(), so that .filename is a str whatever was given. */
static PyObject *raise_failure_path(modstate *ms, const failure *f, PyObject *bpath) {
        PyObject *name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(bpath));
        if (!name)
                return NULL;
        raise_failure(ms, f, name);
        Py_DECREF(name);
        return NULL;
}

static PyObject *raise_errno(modstate *ms, int r, PyObject *filename) {
        failure f;
        failure_set(&f, r);
        return raise_failure(ms, &f, filename);
}

/* Parses malloc()ed JSON text and frees it. */
static PyObject *loads_free(modstate *ms, char *text) {
        PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "surrogateescape");
        free(text);
        if (!s)
                return NULL;
        PyObject *v = PyObject_CallOneArg(ms->json_loads, s);
        Py_DECREF(s);
        return v;
}

static PyObject *str_or_none(const char *s) {
        if (!s)
                Py_RETURN_NONE;
        return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* A list of (errno, path, message) tuples. */
static PyObject *problems_list(size_t n, const pkgnote_problem *(*get)(const void *, size_t), const void *obj) {
        PyObject *l = PyList_New(0);
        for (size_t i = 0; l && i < n; i++) {
                const pkgnote_problem *p = get(obj, i);
                if (!p)
                        break;
                PyObject *path = str_or_none(p->path), *msg = str_or_none(p->message);
                PyObject *t = path && msg ? Py_BuildValue("(iOO)", p->error < 0 ? -p->error : p->error, path, msg) : NULL;
                Py_XDECREF(path);
                Py_XDECREF(msg);
                if (!t || PyList_Append(l, t) < 0) {
                        Py_XDECREF(t);
                        Py_CLEAR(l);
                        break;
                }
                Py_DECREF(t);
        }
        return l;
}

static const pkgnote_problem *info_problem(const void *o, size_t i) { return pkgnote_info_problem(o, i); }
static const pkgnote_problem *core_problem(const void *o, size_t i) { return pkgnote_core_problem(o, i); }
static const pkgnote_problem *scan_problem(const void *o, size_t i) { return pkgnote_scan_problem(o, i); }
static const pkgnote_problem *crashes_problem(const void *o, size_t i) { return pkgnote_crashes_problem(o, i); }

static int list_append_steal(PyObject *l, PyObject *v) {
        if (!v)
                return -1;
        int r = PyList_Append(l, v);
        Py_DECREF(v);
        return r;
}

static int dict_set_steal(PyObject *d, const char *key, PyObject *v) {
        if (!v)
                return -1;
        int r = PyDict_SetItemString(d, key, v);
        Py_DECREF(v);
        return r;
}

/* ------------------------------------------------------------------ */
/* read(), read_bytes()                                                */

/* Appends the parsed JSON text TEXT (a copy is parsed) to L. */
static int append_json(modstate *ms, PyObject *l, const char *text) {
        char *copy = text ? strdup(text) : NULL;
        if (!copy) {
                PyErr_NoMemory();
                return -1;
        }
        return list_append_steal(l, loads_free(ms, copy));
}

/* The report of the view E (freed here), with the members of
 * pkgnote_info_to_json() (less "path") built directly rather than
 * serialized and parsed again (but "embedded", only Go programs have), which would double the cost of reading a
 * file without notes; plus "_notes" (each package note's descriptor
 * bytes), "_problems" and "_warning".  The tests compare it with
 * pkgnote show --json. */
static PyObject *info_report(modstate *ms, pkgnote_object *e, PyObject *filename) {
        pkgnote_info *info = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_info_read(e, &info);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        if (r < 0) {
                pkgnote_object_free(e);
                return filename ? raise_failure_path(ms, &f, filename) : raise_failure(ms, &f, NULL);
        }
        PyObject *d = PyDict_New(), *packages = PyList_New(0), *notes = PyList_New(0), *dlopen = PyList_New(0);
        if (!d || !packages || !notes || !dlopen)
                goto fail;
        int elf_class = pkgnote_object_class(e);
        unsigned machine = pkgnote_object_machine(e);
        const char *arch = pkgnote_machine_name(machine, elf_class);
        if (dict_set_steal(d, "elfType", str_or_none(pkgnote_object_kind(e))) < 0 ||
            dict_set_steal(d, "elfClass", PyLong_FromLong(elf_class)) < 0 ||
            dict_set_steal(d, "byteOrder", str_or_none(pkgnote_object_big_endian(e) ? "big" : "little")) < 0 ||
            dict_set_steal(d, "architecture", arch ? str_or_none(arch) : PyUnicode_FromFormat("machine-%u", machine)) < 0 ||
            dict_set_steal(d, "machine", PyLong_FromUnsignedLong(machine)) < 0 ||
            dict_set_steal(d, "buildId", str_or_none(pkgnote_info_build_id(info))) < 0)
                goto fail;
        for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                const pkgnote_note *n = pkgnote_info_package_note(info, i);
                if (append_json(ms, packages, pkgnote_info_package_json(info, i)) < 0 ||
                    list_append_steal(notes, PyBytes_FromStringAndSize((const char *)n->desc, n->descsz)) < 0)
                        goto fail;
        }
        for (size_t i = 0; i < pkgnote_info_dlopen_count(info); i++) {
                char *j = NULL;
                if ((r = pkgnote_dlopen_to_json(pkgnote_info_dlopen(info, i), &j)) < 0) {
                        raise_errno(ms, r, NULL);
                        goto fail;
                }
                PyObject *entries = loads_free(ms, j);
                if (!entries)
                        goto fail;
                Py_ssize_t end = PyList_GET_SIZE(dlopen);
                r = PyList_Check(entries) ? PyList_SetSlice(dlopen, end, end, entries) : -1;
                Py_DECREF(entries);
                if (r < 0)
                        goto fail;
        }
        /* dict_set_steal() takes the reference whatever it returns. */
        r = dict_set_steal(d, "packages", packages);
        r |= dict_set_steal(d, "dlopen", dlopen);
        r |= dict_set_steal(d, "_notes", notes);
        const pkgnote_embedded *emb = pkgnote_info_embedded(info);
        if (r >= 0 && emb) {
                char *j = NULL;
                int k = pkgnote_embedded_to_json(emb, &j);
                if (k < 0) {
                        raise_errno(ms, k, NULL);
                        r = -1;
                } else
                        r = dict_set_steal(d, "embedded", loads_free(ms, j));
        }
        if (r < 0)
                Py_CLEAR(d);
        else if (dict_set_steal(d, "_problems", problems_list(pkgnote_info_problem_count(info), info_problem, info)) < 0 ||
                 dict_set_steal(d, "_warning", str_or_none(pkgnote_object_notes_warning(e))) < 0)
                Py_CLEAR(d);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return d;
fail:
        Py_XDECREF(d);
        Py_XDECREF(packages);
        Py_XDECREF(notes);
        Py_XDECREF(dlopen);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return NULL;
}

/* Opens the file ARG names (str, bytes or os.PathLike) without the GIL.
 * On success *BPATH holds the converted path, for the caller to release;
 * on failure the exception is set, nothing is held and NULL returned. */
static pkgnote_object *open_path(modstate *ms, PyObject *arg, PyObject **bpath) {
        if (!PyUnicode_FSConverter(arg, bpath))
                return NULL;
        const char *path = PyBytes_AS_STRING(*bpath);
        pkgnote_object *e = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_object_open(path, &e);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        if (r < 0) {
                raise_failure_path(ms, &f, *bpath);
                Py_CLEAR(*bpath);
                return NULL;
        }
        return e;
}

static PyObject *py_read(PyObject *self, PyObject *arg) {
        modstate *ms = module_state(self);
        PyObject *bpath;
        pkgnote_object *e = open_path(ms, arg, &bpath);
        if (!e)
                return NULL;
        PyObject *ret = info_report(ms, e, bpath);
        Py_DECREF(bpath);
        return ret;
}

static PyObject *py_read_bytes(PyObject *self, PyObject *arg) {
        modstate *ms = module_state(self);
        Py_buffer buf;
        if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0)
                return NULL;
        /* The exported buffer cannot be resized or freed while held, so
         * the view may read it without the GIL. */
        pkgnote_object *e = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_object_from_memory(buf.buf, (size_t)buf.len, &e);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        PyObject *ret = r < 0 ? raise_failure(ms, &f, NULL) : info_report(ms, e, NULL);
        PyBuffer_Release(&buf);
        return ret;
}

/* ------------------------------------------------------------------ */
/* Cores and processes                                                 */

static const char *opt_str(PyObject *o, PyObject **keep) {
        *keep = NULL;
        if (!o || o == Py_None)
                return NULL;
        if (!PyUnicode_FSConverter(o, keep))
                return NULL;
        return PyBytes_AS_STRING(*keep);
}

static PyObject *stack_threads(const pkgnote_stack *st) {
        PyObject *threads = PyList_New(0);
        for (size_t t = 0; threads && t < pkgnote_stack_thread_count(st); t++) {
                PyObject *frames = PyList_New(0);
                for (size_t i = 0; frames && i < pkgnote_stack_frame_count(st, t); i++) {
                        unsigned line = 0, column = 0;
                        const char *src = pkgnote_stack_frame_source(st, t, i, &line, &column);
                        PyObject *fn = str_or_none(pkgnote_stack_frame_function(st, t, i));
                        PyObject *mod = str_or_none(pkgnote_stack_frame_module(st, t, i));
                        PyObject *s = str_or_none(src);
                        PyObject *fr = fn && mod && s
                                ? Py_BuildValue("{sKsOsOsKsOsIsIsO}", "pc",
                                                (unsigned long long)pkgnote_stack_frame_pc(st, t, i), "function", fn,
                                                "module", mod, "module_offset",
                                                (unsigned long long)pkgnote_stack_frame_module_offset(st, t, i),
                                                "source", s, "line", line, "column", column, "inlined",
                                                pkgnote_stack_frame_inlined(st, t, i) > 0 ? Py_True : Py_False)
                                : NULL;
                        Py_XDECREF(fn);
                        Py_XDECREF(mod);
                        Py_XDECREF(s);
                        if (!fr || PyList_Append(frames, fr) < 0)
                                Py_CLEAR(frames);
                        Py_XDECREF(fr);
                }
                PyObject *th = frames ? Py_BuildValue("{sisO}", "tid", pkgnote_stack_thread_tid(st, t), "frames", frames) : NULL;
                Py_XDECREF(frames);
                if (!th || PyList_Append(threads, th) < 0)
                        Py_CLEAR(threads);
                Py_XDECREF(th);
        }
        return threads;
}

static const char *const debuginfo_keys[] = {"module", "build_id", "servers", "file", "message"};

static PyObject *stack_debuginfo(const pkgnote_stack *st) {
        PyObject *l = PyList_New(0);
        for (size_t i = 0; l && i < pkgnote_stack_debuginfo_count(st); i++) {
                const pkgnote_debuginfo *di = pkgnote_stack_debuginfo(st, i);
                const char *v[] = {di->module, di->build_id, di->servers, di->file, di->message};
                PyObject *d = PyDict_New();
                for (size_t k = 0; d && k < 5; k++)
                        if (dict_set_steal(d, debuginfo_keys[k], str_or_none(v[k])) < 0)
                                Py_CLEAR(d);
                if (d && dict_set_steal(d, "status", str_or_none(pkgnote_debuginfo_status_name(di->status))) < 0)
                        Py_CLEAR(d);
                if (!d || PyList_Append(l, d) < 0)
                        Py_CLEAR(l);
                Py_XDECREF(d);
        }
        return l;
}

/* _core(kind, source, root, no_disk, no_database, stack, all_threads,
 *       debuginfod, dry_run, urls, allow, cache, timeout_ms)
 * KIND: "path", "fd", "bytes", "pid".  Reads everything at once and
 * frees the core before returning. */
static PyObject *py_core(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        const char *kind;
        PyObject *source, *root_o, *urls_o, *allow_o, *cache_o;
        int no_disk, no_database, want_stack, all_threads, debuginfod, dry_run;
        unsigned timeout_ms;
        if (!PyArg_ParseTuple(args, "sOOppppppOOOI", &kind, &source, &root_o, &no_disk, &no_database, &want_stack,
                              &all_threads, &debuginfod, &dry_run, &urls_o, &allow_o, &cache_o, &timeout_ms))
                return NULL;
        PyObject *keep[5] = {NULL};
        const char *root = opt_str(root_o, &keep[0]);
        const char *urls = opt_str(urls_o, &keep[1]);
        const char *allow = opt_str(allow_o, &keep[2]);
        const char *cache = opt_str(cache_o, &keep[3]);
        PyObject *ret = NULL;
        Py_buffer buf = {0};
        int have_buf = 0, fd = -1, pid = -1;
        const char *path = NULL;
        if (PyErr_Occurred())
                goto out;
        if (!strcmp(kind, "path")) {
                path = opt_str(source, &keep[4]);
                if (!path)
                        goto out;
        } else if (!strcmp(kind, "fd") || !strcmp(kind, "pid")) {
                long v = PyLong_AsLong(source);
                if (v == -1 && PyErr_Occurred())
                        goto out;
                if (v < 0 || v > INT32_MAX) {
                        PyErr_Format(PyExc_ValueError, "%s out of range: %ld", kind, v);
                        goto out;
                }
                *(strcmp(kind, "fd") ? &pid : &fd) = (int)v;
        } else if (!strcmp(kind, "bytes")) {
                if (PyObject_GetBuffer(source, &buf, PyBUF_SIMPLE) < 0)
                        goto out;
                have_buf = 1;
        } else {
                PyErr_Format(PyExc_ValueError, "unknown source kind '%s'", kind);
                goto out;
        }

        pkgnote_core_options o = PKGNOTE_CORE_OPTIONS_INIT;
        o.root = root;
        o.no_disk = no_disk;
        o.no_database = no_database;
        o.flags = want_stack && (path || fd >= 0) ? PKGNOTE_CORE_DECOMPRESS_ONCE : 0;
        pkgnote_stack_options so = PKGNOTE_STACK_OPTIONS_INIT;
        so.flags = (all_threads ? PKGNOTE_STACK_ALL_THREADS : 0) | (debuginfod ? PKGNOTE_STACK_DEBUGINFOD : 0) |
                   (dry_run ? PKGNOTE_STACK_DEBUGINFOD_DRY_RUN : 0);
        so.debuginfod_urls = urls;
        so.debuginfod_allow = allow;
        so.cache_path = cache;
        so.module_timeout_ms = timeout_ms;
        pkgnote_core *c = NULL;
        pkgnote_stack *st = NULL;
        pkgnote_process_info pi = {.size = sizeof pi};
        char *j = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = path         ? pkgnote_core_open(path, &o, &c)
            : fd >= 0    ? pkgnote_core_open_fd(fd, &o, &c)
            : pid >= 0   ? pkgnote_process_open_with(pid, &o, &c)
            : have_buf   ? pkgnote_core_from_memory(buf.buf, (size_t)buf.len, &o, &c)
                         : -EINVAL;
        if (r >= 0 && want_stack)
                r = pkgnote_core_stack_with(c, &so, &st);
        if (r >= 0)
                r = pkgnote_core_process(c, &pi);
        if (r >= 0)
                r = pkgnote_core_to_json(c, st, NULL, 0, &j);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        if (r < 0) {
                path ? raise_failure_path(ms, &f, keep[4]) : raise_failure(ms, &f, NULL);
        } else if ((ret = loads_free(ms, j)) && PyDict_Check(ret)) {
                PyObject *tids = PyList_New(0);
                for (size_t i = 0; tids && i < pkgnote_core_thread_count(c); i++) {
                        const pkgnote_thread_info *ti = pkgnote_core_thread(c, i);
                        PyObject *t = Py_BuildValue("(ii)", ti->tid, ti->signal);
                        if (!t || PyList_Append(tids, t) < 0)
                                Py_CLEAR(tids);
                        Py_XDECREF(t);
                }
                const pkgnote_module *main = pkgnote_core_main_module(c);
                long main_index = -1;
                for (size_t i = 0; main && i < pkgnote_core_module_count(c); i++)
                        if (pkgnote_core_module(c, i) == main)
                                main_index = (long)i;
                if (dict_set_steal(ret, "_main", PyLong_FromLong(main_index)) < 0 ||
                    dict_set_steal(ret, "_process_threads", tids) < 0 ||
                    dict_set_steal(ret, "_problems", problems_list(pkgnote_core_problem_count(c), core_problem, c)) < 0 ||
                    dict_set_steal(ret, "_stack", st ? stack_threads(st) : Py_NewRef(Py_None)) < 0 ||
                    dict_set_steal(ret, "_stack_unavailable", str_or_none(st ? pkgnote_stack_unavailable(st) : NULL)) < 0 ||
                    dict_set_steal(ret, "_debuginfo", st ? stack_debuginfo(st) : PyList_New(0)) < 0)
                        Py_CLEAR(ret);
        }
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
out:
        if (have_buf)
                PyBuffer_Release(&buf);
        for (size_t i = 0; i < 5; i++)
                Py_XDECREF(keep[i]);
        return ret;
}

/* ------------------------------------------------------------------ */
/* Scans                                                               */

typedef struct {
        PyObject_HEAD
        pkgnote_scan *scan;
        /* One call into the scan at a time: pkgnote_scan_add() may not run
         * beside any other use of the scan, and it runs without the GIL. */
        PyThread_type_lock lock;
        PyObject *inputs; /* the names given, for each object's "input" */
} ScanObject;

/* The scan's type is a heap type: each of its instances holds a
 * reference to it (taken by tp_alloc, dropped here), and through it to
 * the module whose state the methods use. */
static void scan_dealloc(PyObject *self) {
        ScanObject *s = (ScanObject *)self;
        PyTypeObject *type = Py_TYPE(self);
        PyObject_GC_UnTrack(self);
        pkgnote_scan_free(s->scan);
        if (s->lock)
                PyThread_free_lock(s->lock);
        Py_CLEAR(s->inputs);
        type->tp_free(self);
        Py_DECREF(type);
}

static int scan_traverse(PyObject *self, visitproc visit, void *arg) {
        Py_VISIT(Py_TYPE(self));
        Py_VISIT(((ScanObject *)self)->inputs);
        return 0;
}

/* Only the collector calls this, on a scan nothing outside its cycle
 * refers to; a finalizer that still reaches it finds it closed
 * (scan_enter()). */
static int scan_clear(PyObject *self) {
        Py_CLEAR(((ScanObject *)self)->inputs);
        return 0;
}

/* Takes the scan's lock, waiting without the GIL; fails when the scan is
 * closed.  The scan is looked at only under the lock, which close()
 * takes too. */
static int scan_enter(ScanObject *s) {
        if (!PyThread_acquire_lock(s->lock, NOWAIT_LOCK)) {
                Py_BEGIN_ALLOW_THREADS
                PyThread_acquire_lock(s->lock, WAIT_LOCK);
                Py_END_ALLOW_THREADS
        }
        if (!s->scan || !s->inputs) {
                PyThread_release_lock(s->lock);
                PyErr_SetString(PyExc_ValueError, "the scan is closed");
                return -1;
        }
        return 0;
}

static PyObject *scan_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
        static char *kwlist[] = {(char *)"flags", (char *)"threads", (char *)"max_member", (char *)"max_bytes", (char *)"platform", NULL};
        modstate *ms = type_state(type);
        if (!ms)
                return NULL;
        unsigned flags = 0, threads = 0;
        unsigned long long max_member = 0, max_bytes = 0;
        const char *platform = NULL;
        if (!PyArg_ParseTupleAndKeywords(args, kw, "|IIKKz", kwlist, &flags, &threads, &max_member, &max_bytes, &platform))
                return NULL;
        pkgnote_scan_options o = PKGNOTE_SCAN_OPTIONS_INIT;
        o.flags = flags;
        o.threads = threads;
        o.max_member = max_member;
        o.max_bytes = max_bytes;
        pkgnote_scan *scan;
        int r = pkgnote_scan_new(&o, &scan);
        if (r < 0)
                return raise_errno(ms, r, NULL);
        if (platform && (r = pkgnote_scan_set_platform(scan, platform)) < 0) {
                raise_errno(ms, r, NULL);
                pkgnote_scan_free(scan);
                return NULL;
        }
        ScanObject *s = (ScanObject *)type->tp_alloc(type, 0);
        if (!s) {
                pkgnote_scan_free(scan);
                return NULL;
        }
        s->scan = scan;
        s->lock = PyThread_allocate_lock();
        s->inputs = PyList_New(0);
        if (!s->lock || !s->inputs) {
                Py_DECREF(s);
                return PyErr_NoMemory();
        }
        return (PyObject *)s;
}

static const char *const db_keys[] = {"db_type", "db_name", "db_version", "db_architecture", "db_source",
                                      "db_source_version"};

/* pkgnote_scan_object_to_json()'s object with the rest of the object's
 * facts: checksums, containers, dependencies, database owner. */
static PyObject *scan_object_dict(modstate *ms, ScanObject *s, const pkgnote_scan_object *ob) {
        size_t in = pkgnote_scan_object_input(ob);
        PyObject *name = (Py_ssize_t)in < PyList_GET_SIZE(s->inputs) ? PyList_GET_ITEM(s->inputs, in) : NULL;
        char *j = NULL;
        int r = pkgnote_scan_object_to_json(ob, name ? PyBytes_AS_STRING(name) : NULL, &j);
        if (r < 0)
                return raise_errno(ms, r, NULL);
        PyObject *d = loads_free(ms, j);
        if (!d)
                return NULL;
        const char *db[] = {pkgnote_scan_object_db_type(ob),        pkgnote_scan_object_db_name(ob),
                            pkgnote_scan_object_db_version(ob),     pkgnote_scan_object_db_architecture(ob),
                            pkgnote_scan_object_db_source(ob),      pkgnote_scan_object_db_source_version(ob)};
        for (size_t k = 0; k < 6; k++)
                if (dict_set_steal(d, db_keys[k], str_or_none(db[k])) < 0)
                        goto fail;
        if (dict_set_steal(d, "db_mismatch", PyBool_FromLong(pkgnote_scan_object_db_mismatch(ob) > 0)) < 0 ||
            dict_set_steal(d, "sha1", str_or_none(pkgnote_scan_object_sha1(ob))) < 0 ||
            dict_set_steal(d, "sha256", str_or_none(pkgnote_scan_object_sha256(ob))) < 0 ||
            dict_set_steal(d, "soname", str_or_none(pkgnote_scan_object_soname(ob))) < 0 ||
            dict_set_steal(d, "size", PyLong_FromUnsignedLongLong(pkgnote_scan_object_size(ob))) < 0)
                goto fail;
        const pkgnote_scan_image *im = pkgnote_scan_object_image(ob);
        if (dict_set_steal(d, "image", str_or_none(im ? pkgnote_scan_image_reference(im) : NULL)) < 0)
                goto fail;
        PyObject *l = PyList_New(0);
        for (size_t i = 0; l && i < pkgnote_scan_object_container_count(ob); i++)
                if (list_append_steal(l, str_or_none(pkgnote_scan_object_container(ob, i))) < 0)
                        Py_CLEAR(l);
        if (dict_set_steal(d, "containers", l) < 0)
                goto fail;
        l = PyList_New(0);
        for (size_t i = 0; l && i < pkgnote_scan_object_needed_count(ob); i++)
                if (list_append_steal(l, str_or_none(pkgnote_scan_object_needed(ob, i))) < 0)
                        Py_CLEAR(l);
        if (dict_set_steal(d, "needed", l) < 0)
                goto fail;
        return d;
fail:
        Py_DECREF(d);
        return NULL;
}

/* add(path, image=None) -> (kind, [object dicts added]) */
static PyObject *scan_add(ScanObject *s, PyObject *args) {
        modstate *ms = type_state(Py_TYPE(s));
        if (!ms)
                return NULL;
        PyObject *path_o, *image_o = Py_None, *bpath, *bimage = NULL;
        if (!PyArg_ParseTuple(args, "O|O", &path_o, &image_o))
                return NULL;
        if (!PyUnicode_FSConverter(path_o, &bpath))
                return NULL;
        const char *image = opt_str(image_o, &bimage);
        if (PyErr_Occurred() || scan_enter(s) < 0) {
                Py_DECREF(bpath);
                Py_XDECREF(bimage);
                return NULL;
        }
        const char *path = PyBytes_AS_STRING(bpath);
        size_t before = pkgnote_scan_object_count(s->scan);
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = image ? pkgnote_scan_add_image(s->scan, path, image) : pkgnote_scan_add(s->scan, path);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        PyObject *ret = NULL;
        /* A failed input takes its index too (pkgnote_scan_object_input()). */
        if (PyList_Append(s->inputs, bpath) < 0)
                ;
        else if (r < 0)
                raise_failure_path(ms, &f, bpath);
        else {
                PyObject *l = PyList_New(0);
                /* Objects sort by input first: this input's are the last. */
                for (size_t i = before; l && i < pkgnote_scan_object_count(s->scan); i++) {
                        PyObject *d = scan_object_dict(ms, s, pkgnote_scan_object_get(s->scan, i));
                        if (!d || PyList_Append(l, d) < 0)
                                Py_CLEAR(l);
                        Py_XDECREF(d);
                }
                ret = l ? Py_BuildValue("(iN)", r, l) : NULL;
        }
        PyThread_release_lock(s->lock);
        Py_DECREF(bpath);
        Py_XDECREF(bimage);
        return ret;
}

static PyObject *scan_summary(ScanObject *s, PyObject *unused) {
        modstate *ms = type_state(Py_TYPE(s));
        if (!ms)
                return NULL;
        if (scan_enter(s) < 0)
                return NULL;
        char *j = NULL;
        int r = pkgnote_scan_summary_to_json(s->scan, &j);
        PyObject *ret = r < 0 ? raise_errno(ms, r, NULL) : loads_free(ms, j);
        if (ret && dict_set_steal(ret, "_problems", problems_list(pkgnote_scan_problem_count(s->scan), scan_problem, s->scan)) < 0)
                Py_CLEAR(ret);
        PyThread_release_lock(s->lock);
        return ret;
}

/* packages() -> [(metadata dict, [object paths])], the distinct notes. */
static PyObject *scan_packages(ScanObject *s, PyObject *unused) {
        modstate *ms = type_state(Py_TYPE(s));
        if (!ms)
                return NULL;
        if (scan_enter(s) < 0)
                return NULL;
        PyObject *l = PyList_New(0);
        for (size_t i = 0; l && i < pkgnote_scan_package_count(s->scan); i++) {
                const char *text = pkgnote_scan_package_json(s->scan, i);
                char *copy = text ? strdup(text) : NULL;
                PyObject *m = copy ? loads_free(ms, copy) : PyErr_NoMemory();
                PyObject *paths = m ? PyList_New(0) : NULL;
                for (size_t k = 0; paths && k < pkgnote_scan_package_object_count(s->scan, i); k++) {
                        PyObject *p = str_or_none(pkgnote_scan_object_path(pkgnote_scan_package_object(s->scan, i, k)));
                        if (!p || PyList_Append(paths, p) < 0)
                                Py_CLEAR(paths);
                        Py_XDECREF(p);
                }
                PyObject *t = paths ? Py_BuildValue("(OO)", m, paths) : NULL;
                Py_XDECREF(m);
                Py_XDECREF(paths);
                if (!t || PyList_Append(l, t) < 0)
                        Py_CLEAR(l);
                Py_XDECREF(t);
        }
        PyThread_release_lock(s->lock);
        return l;
}

/* sbom(format, name=None, created=-1, reproducible=False) -> str */
static PyObject *scan_sbom(ScanObject *s, PyObject *args, PyObject *kw) {
        modstate *ms = type_state(Py_TYPE(s));
        if (!ms)
                return NULL;
        static char *kwlist[] = {(char *)"format", (char *)"name", (char *)"created", (char *)"reproducible", NULL};
        const char *format, *name = NULL;
        long long created = -1;
        int reproducible = 0;
        if (!PyArg_ParseTupleAndKeywords(args, kw, "s|zLp", kwlist, &format, &name, &created, &reproducible))
                return NULL;
        static const struct {
                const char *name;
                int format;
        } formats[] = {
                {"spdx", PKGNOTE_SBOM_SPDX},
                {"spdx3", PKGNOTE_SBOM_SPDX_3},
                {"cyclonedx", PKGNOTE_SBOM_CYCLONEDX},
                {"cyclonedx-1.5", PKGNOTE_SBOM_CYCLONEDX_1_5},
                {"cyclonedx-1.6", PKGNOTE_SBOM_CYCLONEDX_1_6},
                {"cyclonedx-1.7", PKGNOTE_SBOM_CYCLONEDX_1_7},
        };
        int fmt = 0;
        for (size_t i = 0; i < sizeof formats / sizeof *formats && !fmt; i++)
                if (!strcmp(format, formats[i].name))
                        fmt = formats[i].format;
        if (!fmt) {
                PyErr_Format(PyExc_ValueError,
                             "unknown SBOM format '%s' (spdx, spdx3, cyclonedx, cyclonedx-1.5, cyclonedx-1.6, cyclonedx-1.7)", format);
                return NULL;
        }
        if (scan_enter(s) < 0)
                return NULL;
        pkgnote_sbom_options o = PKGNOTE_SBOM_OPTIONS_INIT;
        o.name = name;
        o.created = created;
        o.reproducible = reproducible;
        char *text = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_sbom_write(s->scan, fmt, &o, &text);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        PyThread_release_lock(s->lock);
        if (r < 0)
                return raise_failure(ms, &f, NULL);
        PyObject *ret = PyUnicode_FromString(text);
        free(text);
        return ret;
}

static PyObject *scan_close(ScanObject *s, PyObject *unused) {
        if (scan_enter(s) == 0) {
                pkgnote_scan_free(s->scan);
                s->scan = NULL;
                PyThread_release_lock(s->lock);
        }
        PyErr_Clear();
        Py_RETURN_NONE;
}

static PyMethodDef scan_methods[] = {
        {"add", (PyCFunction)scan_add, METH_VARARGS, "add(path, image=None) -> (kind, [objects])"},
        {"summary", (PyCFunction)scan_summary, METH_NOARGS, "summary() -> dict"},
        {"packages", (PyCFunction)scan_packages, METH_NOARGS, "packages() -> [(metadata, [paths])]"},
        {"sbom", (PyCFunction)(void (*)(void))scan_sbom, METH_VARARGS | METH_KEYWORDS,
         "sbom(format, name=None, created=-1, reproducible=False) -> str"},
        {"close", (PyCFunction)scan_close, METH_NOARGS, "close()"},
        {NULL, NULL, 0, NULL},
};

static PyType_Slot scan_slots[] = {
        {Py_tp_dealloc, scan_dealloc},
        {Py_tp_traverse, scan_traverse},
        {Py_tp_clear, scan_clear},
        {Py_tp_doc, (void *)"A libpkgnote scan (internal: use pkgnote.scan())"},
        {Py_tp_methods, scan_methods},
        {Py_tp_new, scan_new},
        {0, NULL},
};

/* Immutable as the static type it replaces was; not subclassable. */
static PyType_Spec scan_spec = {
        .name = "pkgnote._pkgnote._Scan",
        .basicsize = sizeof(ScanObject),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
        .slots = scan_slots,
};

/* ------------------------------------------------------------------ */
/* generate(), stamp(), lint(), deps()                                 */

static PyObject *bytes_or_text(int text, uint8_t *data, size_t len) {
        PyObject *ret = text ? PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "surrogateescape")
                             : PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)len);
        free(data);
        return ret;
}

/* _generate(form, keys: dict, documents: [str], rpm, use_os_release,
 *           os_release_root, os_release_file, dlopen: [str], target,
 *           ldflags_style) -> str | bytes.  FORM: "json", "note",
 * "object", "asm", "linker-script", "ldflags". */
static PyObject *py_generate(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        const char *form, *rpm, *root, *osfile, *target, *style;
        PyObject *keys, *docs, *dlopen;
        int use_os;
        if (!PyArg_ParseTuple(args, "sO!O!zpzzO!zs", &form, &PyDict_Type, &keys, &PyList_Type, &docs, &rpm, &use_os,
                              &root, &osfile, &PyList_Type, &dlopen, &target, &style))
                return NULL;
        pkgnote_target t = PKGNOTE_TARGET_INIT, *tp = NULL;
        int r;
        if (target) {
                if ((r = pkgnote_target_parse(target, &t)) < 0)
                        return raise_errno(ms, r, NULL);
                tp = &t;
        }
        int ldstyle = !strcmp(style, "make") ? PKGNOTE_LDFLAGS_MAKE : PKGNOTE_LDFLAGS_SHELL;
        char *json = NULL;
        int have_package = PyDict_Size(keys) > 0 || PyList_GET_SIZE(docs) > 0 || rpm;
        if (have_package || !strcmp(form, "json") || PyList_GET_SIZE(dlopen) == 0) {
                pkgnote_compose *c;
                if ((r = pkgnote_compose_new(&c)) < 0)
                        return raise_errno(ms, r, NULL);
                PyObject *k, *v;
                Py_ssize_t pos = 0;
                while (r >= 0 && PyDict_Next(keys, &pos, &k, &v)) {
                        const char *ks = PyUnicode_AsUTF8(k), *vs = PyUnicode_AsUTF8(v);
                        if (!ks || !vs) {
                                pkgnote_compose_free(c);
                                return NULL;
                        }
                        r = pkgnote_compose_set(c, ks, vs);
                }
                for (Py_ssize_t i = 0; r >= 0 && i < PyList_GET_SIZE(docs); i++) {
                        Py_ssize_t len;
                        const char *d = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(docs, i), &len);
                        if (!d) {
                                pkgnote_compose_free(c);
                                return NULL;
                        }
                        r = pkgnote_compose_document(c, d, (size_t)len);
                }
                if (r >= 0 && rpm)
                        r = pkgnote_compose_rpm(c, rpm);
                if (r >= 0)
                        r = osfile ? pkgnote_compose_os_release_file(c, osfile) : pkgnote_compose_os_release(c, root, use_os);
                if (r >= 0)
                        r = pkgnote_compose_json(c, &json);
                failure f = {0};
                if (r < 0)
                        failure_set(&f, r);
                pkgnote_compose_free(c);
                if (r < 0)
                        return raise_failure(ms, &f, NULL);
        }
        uint8_t *data = NULL;
        size_t len = 0;
        int text = 1;
        if (!json && (!strcmp(form, "ldflags") || !strcmp(form, "linker-script"))) {
                PyErr_Format(PyExc_ValueError, "format '%s' carries a package note: give its metadata", form);
                return NULL;
        }
        if (!strcmp(form, "json")) {
                PyObject *ret = str_or_none(json);
                free(json);
                return ret;
        } else if (!strcmp(form, "ldflags")) {
                r = pkgnote_ldflags_package_metadata(json, ldstyle, (char **)&data);
                if (r >= 0)
                        len = strlen((char *)data);
        } else if (!strcmp(form, "linker-script")) {
                r = pkgnote_emit_linker_script(json, (char **)&data);
                if (r >= 0)
                        len = strlen((char *)data);
        } else {
                int f = !strcmp(form, "note") ? PKGNOTE_EMIT_NOTES : !strcmp(form, "object") ? PKGNOTE_EMIT_OBJECT
                        : !strcmp(form, "asm") ? PKGNOTE_EMIT_ASM : 0;
                if (!f) {
                        free(json);
                        PyErr_Format(PyExc_ValueError,
                                     "unknown format '%s' (json, note, object, asm, linker-script, ldflags)", form);
                        return NULL;
                }
                text = f == PKGNOTE_EMIT_ASM;
                size_t n = 0, cap = 1 + (size_t)PyList_GET_SIZE(dlopen);
                pkgnote_note_spec *specs = calloc(cap, sizeof *specs);
                if (!specs) {
                        free(json);
                        return PyErr_NoMemory();
                }
                if (json)
                        specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dlopen); i++) {
                        const char *d = PyUnicode_AsUTF8(PyList_GET_ITEM(dlopen, i));
                        if (!d) {
                                free(specs);
                                free(json);
                                return NULL;
                        }
                        specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, d);
                }
                r = pkgnote_emit(f, specs, n, tp, &data, &len);
                free(specs);
        }
        failure fl = {0};
        if (r < 0)
                failure_set(&fl, r);
        free(json);
        if (r < 0)
                return raise_failure(ms, &fl, NULL);
        return bytes_or_text(text, data, len);
}

/* _stamp(path, output, package_json, dlopen_json, remove_package,
 *        remove_dlopen, flags) -> dict (pkgnote stamp --json's object) */
static PyObject *py_stamp(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        PyObject *path_o, *output_o, *bpath, *boutput = NULL;
        const char *pjson, *djson;
        int rm_package, rm_dlopen;
        unsigned flags;
        if (!PyArg_ParseTuple(args, "OOzzppI", &path_o, &output_o, &pjson, &djson, &rm_package, &rm_dlopen, &flags))
                return NULL;
        if (!PyUnicode_FSConverter(path_o, &bpath))
                return NULL;
        const char *output = opt_str(output_o, &boutput);
        if (PyErr_Occurred()) {
                Py_DECREF(bpath);
                return NULL;
        }
        pkgnote_note_spec specs[2];
        pkgnote_stamp_result results[2] = {{.size = sizeof results[0]}, {.size = sizeof results[0]}};
        size_t n = 0;
        if (pjson || rm_package)
                specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, rm_package ? NULL : pjson);
        if (djson || rm_dlopen)
                specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, rm_dlopen ? NULL : djson);
        const char *path = PyBytes_AS_STRING(bpath);
        char *j = NULL;
        failure f = {0};
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = n ? pkgnote_stamp_notes_file(path, output, specs, n, flags, results) : -EINVAL;
        if (r >= 0)
                r = pkgnote_stamp_notes_result_to_json(results, specs, n, path, &j);
        if (r < 0)
                failure_set(&f, r);
        Py_END_ALLOW_THREADS
        if (!n)
                snprintf(f.message, sizeof f.message, "no note to stamp or remove");
        PyObject *ret = r < 0 ? raise_failure_path(ms, &f, bpath) : loads_free(ms, j);
        Py_DECREF(bpath);
        Py_XDECREF(boutput);
        return ret;
}

static void lint_collect(void *userdata, const pkgnote_lint_finding *finding) {
        void **ctx = userdata; /* {list, path, module state} */
        PyObject *l = ctx[0];
        modstate *ms = ctx[2];
        if (!l || PyErr_Occurred())
                return;
        char *j = NULL;
        int r = pkgnote_lint_finding_to_json(finding, ctx[1], &j);
        PyObject *d = r < 0 ? PyErr_NoMemory() : loads_free(ms, j);
        if (d && dict_set_steal(d, "summary", str_or_none(finding->check->summary)) < 0)
                Py_CLEAR(d);
        list_append_steal(l, d);
}

/* _lint(path) -> [finding dicts].  Findings are gathered under the GIL:
 * linting reads a file already in memory, so there is little to gain. */
static PyObject *py_lint(PyObject *self, PyObject *arg) {
        modstate *ms = module_state(self);
        PyObject *bpath;
        pkgnote_object *e = open_path(ms, arg, &bpath);
        if (!e)
                return NULL;
        PyObject *l = PyList_New(0);
        if (l) {
                void *ctx[3] = {l, (void *)PyBytes_AS_STRING(bpath), ms};
                int r = pkgnote_lint(e, lint_collect, ctx);
                if (PyErr_Occurred())
                        Py_CLEAR(l);
                else if (r < 0) {
                        failure f;
                        Py_CLEAR(l);
                        failure_set(&f, r);
                        raise_failure_path(ms, &f, bpath);
                }
        }
        pkgnote_object_free(e);
        Py_DECREF(bpath);
        return l;
}

/* _deps(paths, format, root, resolve) -> (text, [unresolved sonames]) */
static PyObject *py_deps(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        PyObject *paths;
        const char *format, *root;
        int resolve;
        if (!PyArg_ParseTuple(args, "O!szp", &PyList_Type, &paths, &format, &root, &resolve))
                return NULL;
        int fmt = !strcmp(format, "rpm") ? PKGNOTE_DEPS_RPM : !strcmp(format, "deb") ? PKGNOTE_DEPS_DEB
                  : !strcmp(format, "json") ? PKGNOTE_DEPS_JSON : 0;
        if (!fmt) {
                PyErr_Format(PyExc_ValueError, "unknown style '%s' (rpm, deb, json)", format);
                return NULL;
        }
        pkgnote_deps *d;
        int r = pkgnote_deps_new(&d);
        if (r < 0)
                return raise_errno(ms, r, NULL);
        PyObject *ret = NULL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(paths); i++) {
                PyObject *po = PyList_GET_ITEM(paths, i), *bpath;
                if (!PyUnicode_FSConverter(po, &bpath))
                        goto out;
                const char *path = PyBytes_AS_STRING(bpath);
                failure f = {0};
                Py_BEGIN_ALLOW_THREADS
                pkgnote_object *e = NULL;
                pkgnote_info *info = NULL;
                r = pkgnote_object_open(path, &e);
                if (r >= 0)
                        r = pkgnote_info_read(e, &info);
                for (size_t k = 0; r >= 0 && k < pkgnote_info_dlopen_count(info); k++)
                        r = pkgnote_deps_add(d, path, pkgnote_object_class(e), pkgnote_object_machine(e),
                                             pkgnote_object_big_endian(e), pkgnote_info_dlopen(info, k));
                if (r < 0)
                        failure_set(&f, r);
                pkgnote_info_free(info);
                pkgnote_object_free(e);
                Py_END_ALLOW_THREADS
                if (r < 0) {
                        raise_failure_path(ms, &f, bpath);
                        Py_DECREF(bpath);
                        goto out;
                }
                Py_DECREF(bpath);
        }
        PyObject *unresolved = PyList_New(0);
        if (!unresolved)
                goto out;
        if (resolve || fmt == PKGNOTE_DEPS_DEB) {
                failure f = {0};
                Py_BEGIN_ALLOW_THREADS
                r = pkgnote_deps_resolve_dpkg(d, root);
                if (r < 0)
                        failure_set(&f, r);
                Py_END_ALLOW_THREADS
                if (r < 0) {
                        Py_DECREF(unresolved);
                        raise_failure(ms, &f, NULL);
                        goto out;
                }
                for (size_t i = 0; i < pkgnote_deps_count(d); i++)
                        if (pkgnote_deps_resolved(d, i) == 0 &&
                            list_append_steal(unresolved, str_or_none(pkgnote_deps_sonames(d, i))) < 0) {
                                Py_DECREF(unresolved);
                                goto out;
                        }
        }
        char *text = NULL;
        if ((r = pkgnote_deps_format(d, fmt, &text)) < 0) {
                Py_DECREF(unresolved);
                raise_errno(ms, r, NULL);
                goto out;
        }
        ret = Py_BuildValue("(NN)", str_or_none(text), unresolved);
        free(text);
out:
        pkgnote_deps_free(d);
        return ret;
}

/* _purl(json) -> str | None */
static PyObject *py_purl(PyObject *self, PyObject *arg) {
        modstate *ms = module_state(self);
        Py_ssize_t len;
        const char *json = PyUnicode_AsUTF8AndSize(arg, &len);
        if (!json)
                return NULL;
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, (size_t)len, &m);
        if (r < 0)
                return raise_errno(ms, r, NULL);
        char *p = NULL;
        r = pkgnote_purl(m, &p);
        pkgnote_metadata_free(m);
        if (r == -ENODATA)
                Py_RETURN_NONE;
        if (r < 0)
                return raise_errno(ms, r, NULL);
        PyObject *ret = str_or_none(p);
        free(p);
        return ret;
}

/* _check(json) -> [problem messages]: the spec's rules of
 * pkgnote_metadata_check(); raises ValueError when JSON does not parse. */
static void check_collect(void *userdata, int error, const char *message) {
        if (!PyErr_Occurred())
                list_append_steal(userdata, str_or_none(message));
}

static PyObject *py_check(PyObject *self, PyObject *arg) {
        Py_ssize_t len;
        const char *json = PyUnicode_AsUTF8AndSize(arg, &len);
        if (!json)
                return NULL;
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, (size_t)len, &m);
        if (r < 0) {
                const char *msg = pkgnote_last_error();
                PyErr_Format(PyExc_ValueError, "malformed package note: %s", msg && *msg ? msg : strerror(-r));
                return NULL;
        }
        PyObject *l = PyList_New(0);
        if (l) {
                pkgnote_metadata_check(m, json, (size_t)len, check_collect, l);
                if (PyErr_Occurred())
                        Py_CLEAR(l);
        }
        pkgnote_metadata_free(m);
        return l;
}

/* _signature_from_message(text, packages) -> dict: the crash signature of
 * systemd-coredump's stack text (pkgnote_signature_to_json()). */
static PyObject *py_signature_from_message(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        const char *text, *packages = NULL;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(args, "s#z", &text, &len, &packages))
                return NULL;
        pkgnote_signature *sig;
        char *j = NULL;
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_signature_from_message(text, (size_t)len, packages, &sig);
        if (r >= 0) {
                r = pkgnote_signature_to_json(sig, &j);
                pkgnote_signature_free(sig);
        }
        Py_END_ALLOW_THREADS
        if (r < 0) {
                const char *msg = pkgnote_last_error();
                PyErr_Format(PyExc_ValueError, "no crash signature: %s", msg && *msg ? msg : strerror(-r));
                return NULL;
        }
        return loads_free(ms, j);
}

/* _crash_groups(by, top, stores, pkgnote_dir, systemd_dir, journal_dir,
 * journal_files, match, since, until) -> dict: the crashes of the stores
 * counted by group (pkgnote_crash_groups_to_json()), streamed one by one. */
static PyObject *py_crash_groups(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        const char *by_name;
        Py_ssize_t top;
        long long since, until;
        PyObject *files_arg;
        pkgnote_crash_options o = PKGNOTE_CRASH_OPTIONS_INIT;
        if (!PyArg_ParseTuple(args, "snIzzzOzLL", &by_name, &top, &o.stores, &o.pkgnote_dir, &o.systemd_dir,
                              &o.journal_dir, &files_arg, &o.match, &since, &until))
                return NULL;
        if (top < 0 || since < 0 || until < 0) {
                PyErr_SetString(PyExc_ValueError, "top, since and until cannot be negative");
                return NULL;
        }
        int by = pkgnote_crash_group_by_from_name(by_name);
        if (by < 0) {
                PyErr_SetString(PyExc_ValueError, pkgnote_last_error());
                return NULL;
        }
        o.since = since, o.until = until;
        /* the journal files as bytes, alive until the call returns */
        PyObject *files = NULL;
        const char **paths = NULL;
        if (files_arg != Py_None) {
                PyObject *seq = PySequence_Fast(files_arg, "journal_files must be a sequence of paths");
                if (!seq)
                        return NULL;
                Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
                files = PyList_New(n);
                paths = calloc((size_t)n + 1, sizeof *paths);
                if (!files || !paths) {
                        Py_DECREF(seq);
                        Py_XDECREF(files);
                        free(paths);
                        return PyErr_NoMemory();
                }
                for (Py_ssize_t i = 0; i < n; i++) {
                        PyObject *b = NULL;
                        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b)) {
                                Py_DECREF(seq);
                                Py_DECREF(files);
                                free(paths);
                                return NULL;
                        }
                        PyList_SET_ITEM(files, i, b);
                        paths[i] = PyBytes_AS_STRING(b);
                }
                Py_DECREF(seq);
                o.journal_files = paths;
        }
        char *j = NULL;
        failure f = {0};
        int r;
        pkgnote_crashes *l = NULL;
        Py_BEGIN_ALLOW_THREADS
        pkgnote_crash_groups *g = NULL;
        const pkgnote_crash *c;
        r = pkgnote_crash_groups_new(by, &g);
        o.flags |= PKGNOTE_CRASH_WHOLE_RECORDS; /* every record is read: in one pass */
        if (r >= 0)
                r = pkgnote_crashes_open(&o, &l);
        while (r >= 0 && (r = pkgnote_crashes_next(l, &c)) > 0) {
                r = pkgnote_crash_groups_add(g, c);
                if (r == -E2BIG) /* a new group past the limit: the others are counted on */
                        r = 0;
        }
        if (r >= 0)
                r = pkgnote_crash_groups_to_json(g, (size_t)top, &j);
        if (r < 0)
                failure_set(&f, r);
        pkgnote_crash_groups_free(g);
        Py_END_ALLOW_THREADS
        Py_XDECREF(files);
        free(paths);
        if (r < 0) {
                pkgnote_crashes_free(l);
                return raise_failure(ms, &f, NULL);
        }
        /* and what could not be read, as the command says it on stderr */
        PyObject *ret = loads_free(ms, j);
        if (ret && dict_set_steal(ret, "_problems",
                                  problems_list(l ? pkgnote_crashes_problem_count(l) : 0, crashes_problem, l)) < 0)
                Py_CLEAR(ret);
        pkgnote_crashes_free(l);
        return ret;
}

/* The dlopen entries chosen: FEATURES, a list of str, as C strings in a
 * malloc()ed array *RET of *N (valid while the list lives); NULL with an
 * exception set (a feature not a str, or holding a NUL). */
static int features_get(PyObject *features, const char ***ret, size_t *n) {
        Py_ssize_t k = PyList_GET_SIZE(features);
        const char **v = calloc((size_t)k + 1, sizeof *v);
        if (!v) {
                PyErr_NoMemory();
                return -1;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
                Py_ssize_t len;
                PyObject *o = PyList_GET_ITEM(features, i);
                if (!PyUnicode_Check(o)) {
                        PyErr_SetString(PyExc_TypeError, "features must be str");
                        free(v);
                        return -1;
                }
                if (!(v[i] = PyUnicode_AsUTF8AndSize(o, &len)) || strlen(v[i]) != (size_t)len) {
                        if (v[i])
                                PyErr_SetString(PyExc_ValueError, "a feature name holds a NUL character");
                        free(v);
                        return -1;
                }
        }
        *ret = v, *n = (size_t)k;
        return 0;
}

/* Selects, through SELECT on H, the entries of the N FEATURES, of
 * PRIORITY (0: none by priority) and every one with ALL, as the
 * command's --feature, --priority and --all-features do. */
static int deps_select(const char *const *features, size_t n, int priority, int all, void *h,
                       int (*select)(void *h, const char *feature, int priority, unsigned flags)) {
        int r = 0;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = select(h, features[i], 0, 0);
        if (r >= 0 && (priority || all || n))
                r = select(h, NULL, priority, all ? 1u : 0u);
        return r;
}

static int verify_select(void *h, const char *f, int p, unsigned fl) {
        return pkgnote_verify_select(h, f, p, fl ? PKGNOTE_VERIFY_ALL_FEATURES : 0);
}

static int closure_select(void *h, const char *f, int p, unsigned fl) {
        return pkgnote_closure_select(h, f, p, fl ? PKGNOTE_CLOSURE_ALL_FEATURES : 0);
}

/* PyUnicode_FSConverter() that takes None for NULL. */
/* A path (bytes), or None; with Py_CLEANUP_SUPPORTED, so that a later
 * argument's failure gives back what an earlier one made. */
static int fs_or_none(PyObject *o, void *p) {
        if (!o) { /* the cleanup call */
                Py_CLEAR(*(PyObject **)p);
                return 1;
        }
        if (o == Py_None) {
                *(PyObject **)p = NULL;
                return Py_CLEANUP_SUPPORTED;
        }
        return PyUnicode_FSConverter(o, p) ? Py_CLEANUP_SUPPORTED : 0;
}

/* _verify(path, features, priority, all_features) -> dict: whether the
 * artefact PATH holds what its programs need (pkgnote_verify_to_json()). */
static PyObject *py_verify(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        PyObject *bpath, *features;
        int priority, all;
        if (!PyArg_ParseTuple(args, "O&O!ip", PyUnicode_FSConverter, &bpath, &PyList_Type, &features, &priority, &all))
                return NULL;
        const char **fv;
        size_t nf;
        if (features_get(features, &fv, &nf) < 0) {
                Py_DECREF(bpath);
                return NULL;
        }
        pkgnote_verify *v = NULL;
        failure f = {0};
        char *j = NULL;
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = pkgnote_verify_new(PyBytes_AS_STRING(bpath), &v);
        if (r >= 0)
                r = deps_select(fv, nf, priority, all, v, verify_select);
        if (r >= 0)
                r = pkgnote_verify_run(v);
        if (r >= 0)
                r = pkgnote_verify_to_json(v, &j);
        if (r < 0)
                failure_set(&f, r);
        pkgnote_verify_free(v);
        Py_END_ALLOW_THREADS
        free(fv);
        if (r < 0) {
                raise_failure_path(ms, &f, bpath);
                Py_DECREF(bpath);
                return NULL;
        }
        Py_DECREF(bpath);
        return loads_free(ms, j);
}

/* _closure(paths, root, features, priority, all_features) -> dict: every
 * file the programs PATHS need inside ROOT (pkgnote_closure_to_json()). */
static PyObject *py_closure(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        PyObject *paths, *features, *broot = NULL, *bytes = NULL;
        int priority, all;
        if (!PyArg_ParseTuple(args, "O!O&O!ip", &PyList_Type, &paths, fs_or_none, &broot, &PyList_Type, &features,
                              &priority, &all))
                return NULL;
        const char **fv = NULL, **pv = NULL;
        size_t nf = 0, np = (size_t)PyList_GET_SIZE(paths);
        /* the paths as bytes, alive until the call returns */
        if (features_get(features, &fv, &nf) < 0 || !(bytes = PyList_New((Py_ssize_t)np)) ||
            !(pv = calloc(np + 1, sizeof *pv))) {
                if (!PyErr_Occurred())
                        PyErr_NoMemory();
                goto fail;
        }
        for (size_t i = 0; i < np; i++) {
                PyObject *b = NULL;
                if (!PyUnicode_FSConverter(PyList_GET_ITEM(paths, (Py_ssize_t)i), &b))
                        goto fail;
                PyList_SET_ITEM(bytes, (Py_ssize_t)i, b);
                pv[i] = PyBytes_AS_STRING(b);
        }
        const char *root = broot ? PyBytes_AS_STRING(broot) : NULL, *failed = NULL;
        failure f = {0};
        char *j = NULL;
        int r;
        Py_BEGIN_ALLOW_THREADS
        pkgnote_closure *c = NULL;
        r = pkgnote_closure_new(root, &c);
        if (r < 0)
                failed = root ? root : "/";
        else
                r = deps_select(fv, nf, priority, all, c, closure_select);
        for (size_t i = 0; r >= 0 && i < np; i++)
                if ((r = pkgnote_closure_add(c, pv[i])) < 0)
                        failed = pv[i];
        /* files named by their package where the root has a database
         * (dpkg's, else rpm's), as the command's JSON does */
        pkgnote_pkgdb *db = NULL;
        const char *where;
        if (r >= 0 && pkgnote_pkgdb_open(root, "deb", &where, &db) <= 0 &&
            pkgnote_pkgdb_open(root, "rpm", &where, &db) <= 0)
                db = NULL;
        if (r >= 0)
                r = pkgnote_closure_to_json(c, db, &j);
        if (r < 0)
                failure_set(&f, r);
        pkgnote_pkgdb_free(db);
        pkgnote_closure_free(c);
        Py_END_ALLOW_THREADS
        if (r < 0) {
                PyObject *name = failed ? PyUnicode_DecodeFSDefault(failed) : NULL;
                if (!failed || name)
                        raise_failure(ms, &f, name);
                Py_XDECREF(name);
                goto fail;
        }
        free(fv);
        free(pv);
        Py_DECREF(bytes);
        Py_XDECREF(broot);
        return loads_free(ms, j);
fail:
        free(fv);
        free(pv);
        Py_XDECREF(bytes);
        Py_XDECREF(broot);
        return NULL;
}

/* _kernel(sysfs, osrelease, root, no_database, no_modules, no_image) ->
 * dict: the running kernel (pkgnote_kernel_to_json()). */
static PyObject *py_kernel(PyObject *self, PyObject *args) {
        modstate *ms = module_state(self);
        PyObject *bsys = NULL, *brel = NULL, *broot = NULL;
        int no_db, no_mods, no_image;
        if (!PyArg_ParseTuple(args, "O&O&O&ppp", fs_or_none, &bsys, fs_or_none, &brel, fs_or_none, &broot, &no_db,
                              &no_mods, &no_image))
                return NULL;
        pkgnote_kernel_options o = PKGNOTE_KERNEL_OPTIONS_INIT;
        o.sysfs = bsys ? PyBytes_AS_STRING(bsys) : NULL;
        o.osrelease = brel ? PyBytes_AS_STRING(brel) : NULL;
        o.root = broot ? PyBytes_AS_STRING(broot) : NULL;
        o.flags = (no_db ? PKGNOTE_KERNEL_NO_DATABASE : 0) | (no_mods ? PKGNOTE_KERNEL_NO_MODULES : 0) |
                  (no_image ? PKGNOTE_KERNEL_NO_IMAGE : 0);
        failure f = {0};
        char *j = NULL;
        int r;
        Py_BEGIN_ALLOW_THREADS
        pkgnote_kernel *k = NULL;
        r = pkgnote_kernel_read(&o, &k);
        if (r >= 0)
                r = pkgnote_kernel_to_json(k, &j);
        if (r < 0)
                failure_set(&f, r);
        pkgnote_kernel_free(k);
        Py_END_ALLOW_THREADS
        PyObject *ret = NULL;
        if (r < 0) {
                PyObject *name = PyUnicode_DecodeFSDefault(o.sysfs ? o.sysfs : "/sys");
                if (name)
                        raise_failure(ms, &f, name);
                Py_XDECREF(name);
        } else
                ret = loads_free(ms, j);
        Py_XDECREF(bsys);
        Py_XDECREF(brel);
        Py_XDECREF(broot);
        return ret;
}

static PyMethodDef methods[] = {
        {"_read", py_read, METH_O, "_read(path) -> dict"},
        {"_read_bytes", py_read_bytes, METH_O, "_read_bytes(buffer) -> dict"},
        {"_core", py_core, METH_VARARGS, "_core(kind, source, ...) -> dict"},
        {"_generate", py_generate, METH_VARARGS, "_generate(form, ...) -> str | bytes"},
        {"_stamp", py_stamp, METH_VARARGS, "_stamp(path, ...) -> dict"},
        {"_lint", py_lint, METH_O, "_lint(path) -> list"},
        {"_deps", py_deps, METH_VARARGS, "_deps(paths, style, root, resolve) -> (str, list)"},
        {"_purl", py_purl, METH_O, "_purl(json) -> str | None"},
        {"_check", py_check, METH_O, "_check(json) -> list"},
        {"_signature_from_message", py_signature_from_message, METH_VARARGS,
         "_signature_from_message(text, packages) -> dict"},
        {"_crash_groups", py_crash_groups, METH_VARARGS, "_crash_groups(by, top, ...) -> dict"},
        {"_verify", py_verify, METH_VARARGS, "_verify(path, features, priority, all_features) -> dict"},
        {"_closure", py_closure, METH_VARARGS, "_closure(paths, root, features, priority, all_features) -> dict"},
        {"_kernel", py_kernel, METH_VARARGS, "_kernel(sysfs, osrelease, root, no_database, no_modules) -> dict"},
        {NULL, NULL, 0, NULL},
};

/* The module's state holds strong references; the collector sees them
 * (a scan type refers to the module, the module to its type: a cycle). */
static int module_traverse(PyObject *m, visitproc visit, void *arg) {
        modstate *ms = module_state(m);
        if (!ms)
                return 0;
        Py_VISIT(ms->json_loads);
        Py_VISIT(ms->Error);
        Py_VISIT(ms->NotFoundError);
        Py_VISIT(ms->PermissionDeniedError);
        Py_VISIT(ms->ScanType);
        return 0;
}

static int module_clear(PyObject *m) {
        modstate *ms = module_state(m);
        if (!ms)
                return 0;
        Py_CLEAR(ms->json_loads);
        Py_CLEAR(ms->Error);
        Py_CLEAR(ms->NotFoundError);
        Py_CLEAR(ms->PermissionDeniedError);
        Py_CLEAR(ms->ScanType);
        return 0;
}

static void module_free(void *m) { module_clear(m); }

/* Fills a new module object's state and namespace (the Py_mod_exec slot).
 * On failure the module is discarded and module_free() releases what was
 * made. */
static int module_exec(PyObject *m) {
        modstate *ms = module_state(m);
        PyObject *json = PyImport_ImportModule("json");
        if (!json)
                return -1;
        ms->json_loads = PyObject_GetAttrString(json, "loads");
        Py_DECREF(json);
        if (!ms->json_loads)
                return -1;
        ms->ScanType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &scan_spec, NULL);
        if (!ms->ScanType)
                return -1;
        ms->Error = PyErr_NewExceptionWithDoc("pkgnote.Error",
                                              "A libpkgnote failure: an OSError with the errno and the library's message.",
                                              PyExc_OSError, NULL);
        if (!ms->Error)
                return -1;
        PyObject *b1 = PyTuple_Pack(2, ms->Error, PyExc_FileNotFoundError);
        PyObject *b2 = PyTuple_Pack(2, ms->Error, PyExc_PermissionError);
        ms->NotFoundError = b1 ? PyErr_NewExceptionWithDoc("pkgnote.NotFoundError",
                                                           "pkgnote.Error for ENOENT; also a FileNotFoundError.", b1, NULL)
                               : NULL;
        ms->PermissionDeniedError = b2 ? PyErr_NewExceptionWithDoc(
                                                 "pkgnote.PermissionDeniedError",
                                                 "pkgnote.Error for EACCES and EPERM; also a PermissionError.", b2, NULL)
                                       : NULL;
        Py_XDECREF(b1);
        Py_XDECREF(b2);
        if (!ms->NotFoundError || !ms->PermissionDeniedError || PyModule_AddObjectRef(m, "Error", ms->Error) < 0 ||
            PyModule_AddObjectRef(m, "NotFoundError", ms->NotFoundError) < 0 ||
            PyModule_AddObjectRef(m, "PermissionDeniedError", ms->PermissionDeniedError) < 0 ||
            PyModule_AddObjectRef(m, "_Scan", (PyObject *)ms->ScanType) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_ONE_FILE_SYSTEM", PKGNOTE_SCAN_ONE_FILE_SYSTEM) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_CHECKSUMS", PKGNOTE_SCAN_CHECKSUMS) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_LIST_IMAGES", PKGNOTE_SCAN_LIST_IMAGES) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_VERIFY_LAYERS", PKGNOTE_SCAN_VERIFY_LAYERS) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_DEPENDENCIES", PKGNOTE_SCAN_DEPENDENCIES) < 0 ||
            PyModule_AddIntConstant(m, "SCAN_OPEN_ARCHIVES", PKGNOTE_SCAN_OPEN_ARCHIVES) < 0 ||
            PyModule_AddIntConstant(m, "STAMP_FORCE", PKGNOTE_STAMP_FORCE) < 0 ||
            PyModule_AddIntConstant(m, "STAMP_REQUIRE_FIRST_PAGE", PKGNOTE_STAMP_REQUIRE_FIRST_PAGE) < 0)
                return -1;
        return 0;
}

/* Multi-phase initialization (PEP 489): every interpreter, and every
 * module object importlib makes from the spec, runs module_exec() on a
 * state of its own.  With no global state, the module may run in
 * subinterpreters with a GIL of their own (3.12+); and since the library
 * keeps no global mutable state either (pkgnote.h, "Threads"), each call
 * works on objects it made itself and a scan admits one call at a time
 * under its own lock, the module does not need the GIL (3.13+'s
 * free-threaded build). */
static PyModuleDef_Slot module_slots[] = {
        {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters
        {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
        {0, NULL},
};

static struct PyModuleDef module = {
        PyModuleDef_HEAD_INIT,
        .m_name = "pkgnote._pkgnote",
        .m_doc = "libpkgnote's public API for the pkgnote package (internal: import pkgnote).",
        .m_size = sizeof(modstate),
        .m_methods = methods,
        .m_slots = module_slots,
        .m_traverse = module_traverse,
        .m_clear = module_clear,
        .m_free = module_free,
};

PyMODINIT_FUNC PyInit__pkgnote(void);
PyMODINIT_FUNC PyInit__pkgnote(void) { return PyModuleDef_Init(&module); }
