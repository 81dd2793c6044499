/* Reads a directory and lstat's each entry (fstatat, AT_SYMLINK_NOFOLLOW, through the directory's
 * descriptor) with the GIL released: a directory of a million entries costs its system calls and
 * little more (os.scandir and os.stat_result cost ~3 us of Python per entry on top). On request the
 * entries come sorted by their names' bytes: Python's sort of a million names read in hash order costs
 * about a microsecond each (a cache miss per comparison); here a radix sort of 8 bytes of each
 * name orders most of them.
 * Optional: built by hatch_build.py where a C compiler is found; filesystem.py falls back to
 * os.scandir without it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *names;       /* each name followed by its NUL */
    size_t used, room;
    size_t *starts;    /* where each name starts in names */
    unsigned char *types; /* each entry's d_type */
    Py_ssize_t count, capacity;
} Entries;

static void entries_free(Entries *found) {
    free(found->names);
    free(found->starts);
    free(found->types);
}

static int entries_add(Entries *found, const char *name, unsigned char type) {
    size_t length = strlen(name) + 1;
    if (found->used + length > found->room) {
        size_t room = found->room ? found->room * 2 : 1 << 16;
        while (room < found->used + length) room *= 2;
        char *names = realloc(found->names, room);
        if (names == NULL) return -1;
        found->names = names, found->room = room;
    }
    if (found->count == found->capacity) {
        Py_ssize_t capacity = found->capacity ? found->capacity * 2 : 1024;
        size_t *starts = realloc(found->starts, (size_t)capacity * sizeof(size_t));
        if (starts == NULL) return -1;
        found->starts = starts;
        unsigned char *types = realloc(found->types, (size_t)capacity);
        if (types == NULL) return -1;
        found->types = types, found->capacity = capacity;
    }
    memcpy(found->names + found->used, name, length);
    found->starts[found->count] = found->used;
    found->types[found->count++] = type;
    found->used += length;
    return 0;
}

/* An entry's kind as one letter: 'd' a directory, 'f' a regular file, 'l' a symbolic link, 'o' anything
 * else (what os.DirEntry's is_dir/is_file/is_symlink tell, with follow_symlinks=False). */
static char kind_of_mode(mode_t mode) {
    return S_ISDIR(mode) ? 'd' : S_ISREG(mode) ? 'f' : S_ISLNK(mode) ? 'l' : 'o';
}

static char kind_of_type(unsigned char type) {
    return type == DT_DIR ? 'd' : type == DT_REG ? 'f' : type == DT_LNK ? 'l' : 'o';
}

typedef struct {
    int dir_fd;
    const Entries *found;
    long long *numbers;
    char *kinds;
    Py_ssize_t from, to;
} Part;

static void *stat_part(void *argument) {
    const Part *part = argument;
    const Entries *found = part->found;
    long long *modes = part->numbers, *sizes = modes + found->count, *owners = sizes + found->count;
    for (Py_ssize_t i = part->from; i < part->to; i++) {
        struct stat st;
        if (fstatat(part->dir_fd, found->names + found->starts[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
            modes[i] = st.st_mode, sizes[i] = st.st_size, owners[i] = st.st_uid;
            part->kinds[i] = kind_of_mode(st.st_mode);
        } else { /* gone since it was listed: its kind as listed, no mode, size or owner */
            modes[i] = sizes[i] = owners[i] = -1;
            part->kinds[i] = kind_of_type(found->types[i]);
        }
    }
    return NULL;
}

/* A name to sort: its 8 bytes after the prefix all names share, big-endian (most names are told
 * apart there, without reading them), the name, and where it was read. */
typedef struct {
    uint64_t key;
    const char *name;
    Py_ssize_t at;
} Sorted;

static int compare_names(const void *left, const void *right) {
    return strcmp(((const Sorted *)left)->name, ((const Sorted *)right)->name);
}

/* Sorts by key, a byte at a time from the last (least significant digit radix: stable, one pass a
 * byte that is not the same in all keys), then each run of equal keys by the names. */
static int sort_by_key(Sorted *sorted, Py_ssize_t count) {
    Sorted *other = malloc((size_t)count * sizeof(Sorted));
    if (other == NULL) return -1;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t counts[256] = {0};
        for (Py_ssize_t i = 0; i < count; i++) counts[(sorted[i].key >> shift) & 0xff]++;
        if (counts[(sorted[0].key >> shift) & 0xff] == (size_t)count) continue; /* this byte is the same in all */
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t n = counts[b];
            counts[b] = at;
            at += n;
        }
        for (Py_ssize_t i = 0; i < count; i++) other[counts[(sorted[i].key >> shift) & 0xff]++] = sorted[i];
        memcpy(sorted, other, (size_t)count * sizeof(Sorted));
    }
    free(other);
    for (Py_ssize_t from = 0; from < count;) {
        Py_ssize_t to = from + 1;
        while (to < count && sorted[to].key == sorted[from].key) to++;
        if (to - from > 1) qsort(sorted + from, (size_t)(to - from), sizeof(Sorted), compare_names);
        from = to;
    }
    return 0;
}

/* The entries in the order of their names' bytes (strcmp); order[i] is where entry i was read. */
static int entries_sort(Entries *found, uint32_t *order) {
    Py_ssize_t count = found->count;
    if (count == 0) return 0;
    const char *first = found->names + found->starts[0];
    size_t shared = strlen(first);
    for (Py_ssize_t i = 1; i < count && shared > 0; i++) {
        const char *name = found->names + found->starts[i];
        size_t k = 0;
        while (k < shared && name[k] == first[k]) k++;
        shared = k;
    }
    Sorted *sorted = malloc((size_t)count * sizeof(Sorted));
    size_t *starts = malloc((size_t)count * sizeof(size_t));
    unsigned char *types = malloc((size_t)count);
    if (sorted == NULL || starts == NULL || types == NULL) {
        free(sorted), free(starts), free(types);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *name = found->names + found->starts[i];
        uint64_t key = 0;
        int ended = 0;
        for (size_t k = 0; k < 8; k++) {
            unsigned char byte = ended ? 0 : (unsigned char)name[shared + k];
            ended = ended || byte == 0;
            key = key << 8 | byte;
        }
        sorted[i] = (Sorted){key, name, i};
    }
    if (sort_by_key(sorted, count) < 0) {
        free(sorted), free(starts), free(types);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        starts[i] = found->starts[sorted[i].at];
        types[i] = found->types[sorted[i].at];
        order[i] = (uint32_t)sorted[i].at;
    }
    free(sorted);
    free(found->starts), free(found->types);
    found->starts = starts, found->types = types;
    return 0;
}

#define MAX_THREADS 4
#define ENTRIES_PER_THREAD 4096

/* Each entry's mode, size and owner into numbers, its kind into kinds, in parts on up to one thread per core (MAX_THREADS):
 * most of a stat is the kernel's, and a second core halves the wait. */
static void stat_all(int dir_fd, const Entries *found, long long *numbers, char *kinds) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    Py_ssize_t threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores;
    if (threads > found->count / ENTRIES_PER_THREAD) threads = found->count / ENTRIES_PER_THREAD;
    if (threads < 1) threads = 1;
    Part parts[MAX_THREADS];
    pthread_t started[MAX_THREADS];
    int running[MAX_THREADS] = {0};
    for (Py_ssize_t n = 0; n < threads; n++) {
        parts[n] = (Part){dir_fd, found, numbers, kinds, found->count * n / threads, found->count * (n + 1) / threads};
        if (n > 0) running[n] = pthread_create(&started[n], NULL, stat_part, &parts[n]) == 0;
    }
    stat_part(&parts[0]);
    for (Py_ssize_t n = 1; n < threads; n++) {
        if (running[n]) pthread_join(started[n], NULL);
        else stat_part(&parts[n]); /* no thread could be started: this one does its part */
    }
}

static PyObject *scan(PyObject *Py_UNUSED(module), PyObject *args) {
    int dir_fd, sort = 0;
    if (!PyArg_ParseTuple(args, "i|p", &dir_fd, &sort)) return NULL;
    Entries found = {0};
    int error = 0, no_memory = 0;
    DIR *directory = NULL;
    int own;
    Py_BEGIN_ALLOW_THREADS
    own = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    directory = own < 0 ? NULL : fdopendir(own);
    if (directory == NULL) {
        error = errno;
        if (own >= 0) close(own);
    } else {
        rewinddir(directory); /* the descriptor's offset (shared with the dup) may be past the start */
        for (;;) {
            errno = 0;
            struct dirent *entry = readdir(directory);
            if (entry == NULL) {
                error = errno;
                break;
            }
            const char *name = entry->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            if (entries_add(&found, name, entry->d_type) < 0) {
                no_memory = 1;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *order = NULL;
    if (sort && !error && !no_memory) {
        order = PyBytes_FromStringAndSize(NULL, found.count * (Py_ssize_t)sizeof(uint32_t));
        if (order == NULL) no_memory = 1;
        else if (found.count > UINT32_MAX) no_memory = 1;
        else {
            int sorted;
            uint32_t *positions = (uint32_t *)PyBytes_AS_STRING(order);
            Py_BEGIN_ALLOW_THREADS
            sorted = entries_sort(&found, positions);
            Py_END_ALLOW_THREADS
            no_memory = sorted < 0;
        }
    }
    /* The results are written straight into the bytes returned: a million entries' names are held
     * twice (as read, then as str) and nothing else is. */
    PyObject *kinds = NULL, *packed = NULL, *names = NULL;
    if (!error && !no_memory) {
        kinds = PyBytes_FromStringAndSize(NULL, found.count);
        packed = PyBytes_FromStringAndSize(NULL, 3 * found.count * (Py_ssize_t)sizeof(long long));
    }
    if (kinds != NULL && packed != NULL) {
        long long *numbers = (long long *)PyBytes_AS_STRING(packed);
        char *kinds_out = PyBytes_AS_STRING(kinds);
        Py_BEGIN_ALLOW_THREADS
        stat_all(own, &found, numbers, kinds_out);
        Py_END_ALLOW_THREADS
    }
    if (directory != NULL) {
        rewinddir(directory); /* as os.scandir leaves it: the descriptor can be read again */
        closedir(directory);
    }
    free(found.types);
    found.types = NULL;
    if (kinds != NULL && packed != NULL) {
        names = PyList_New(found.count);
        for (Py_ssize_t i = 0; names != NULL && i < found.count; i++) {
            const char *at = found.names + found.starts[i];
            PyObject *name = PyUnicode_DecodeFSDefaultAndSize(at, (Py_ssize_t)strlen(at));
            if (name == NULL) {
                Py_CLEAR(names);
                break;
            }
            PyList_SET_ITEM(names, i, name);
        }
    }
    entries_free(&found);
    if (names == NULL) {
        Py_XDECREF(kinds);
        Py_XDECREF(packed);
        Py_XDECREF(order);
        if (error) {
            errno = error;
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        return no_memory ? PyErr_NoMemory() : NULL;
    }
    if (order != NULL) return Py_BuildValue("(NNNN)", names, kinds, packed, order);
    return Py_BuildValue("(NNN)", names, kinds, packed);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(dir_fd, sort=False): the names in the directory open as dir_fd (but . and ..), in the order read; each one's "
     "kind, a byte (d directory, f regular file, l symbolic link, o other); and its st_mode, st_size and st_uid "
     "from fstatat(AT_SYMLINK_NOFOLLOW), packed as native 64-bit integers: the modes, then the sizes, then the "
     "owners. An entry gone before its stat has its kind from its d_type, and mode, size and owner -1. With sort, "
     "the entries are in the order of their names' bytes (strcmp), and a fourth item tells where each was read: "
     "its index in the directory's order, packed as native unsigned 32-bit integers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {PyModuleDef_HEAD_INIT, "_dirscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__dirscan(void) { return PyModule_Create(&definition); }
