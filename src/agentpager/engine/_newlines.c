/* Counts and finds the newlines in a buffer with the GIL released: the line index's scan threads
 * then count blocks at once, without importing numpy (0.07-0.1 s of a cold `agentpager call`).
 * Counts a JSON line's opening brackets too (jsontext's bound on nesting, before a parse), and a
 * marker's occurrences (memmem: about 4x bytes.count on JSON, whose many quotes keep its skips short).
 * Measures a parsed JSON value's text as json.dumps writes it, without writing it (a call's arguments).
 * Optional: built by hatch_build.py where a C compiler is found; newline_scan.py falls back to
 * numpy and bytes methods without it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The bytes equal to `one` or to `other` (the same byte twice: that byte). */
static Py_ssize_t count_bytes(const unsigned char *data, Py_ssize_t length, unsigned char one, unsigned char other) {
    Py_ssize_t found = 0, i = 0;
#ifdef __SSE2__
    /* 16 bytes at a time: each lane's byte counter takes up to 255 matches before it is summed. */
    const __m128i ones = _mm_set1_epi8((char)one), others = _mm_set1_epi8((char)other), zero = _mm_setzero_si128();
    while (length - i >= 16) {
        Py_ssize_t rounds = (length - i) / 16;
        if (rounds > 255) rounds = 255;
        __m128i lanes = zero;
        for (Py_ssize_t round = 0; round < rounds; round++, i += 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(data + i));
            lanes = _mm_sub_epi8(lanes, _mm_or_si128(_mm_cmpeq_epi8(bytes, ones), _mm_cmpeq_epi8(bytes, others)));
        }
        __m128i sums = _mm_sad_epu8(lanes, zero);
        found += (Py_ssize_t)_mm_cvtsi128_si32(sums) + (Py_ssize_t)_mm_extract_epi16(sums, 4);
    }
#endif
    for (; i < length; i++) found += data[i] == one || data[i] == other;
    return found;
}

static PyObject *count(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t end;
    if (!PyArg_ParseTuple(args, "y*n", &view, &end)) return NULL;
    if (end < 0 || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "end is outside the buffer");
        return NULL;
    }
    Py_ssize_t found;
    Py_BEGIN_ALLOW_THREADS
    found = count_bytes((const unsigned char *)view.buf, end, '\n', '\n');
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyObject *offsets(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t end;
    long long base;
    if (!PyArg_ParseTuple(args, "y*nL", &view, &end, &base)) return NULL;
    if (end < 0 || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "end is outside the buffer");
        return NULL;
    }
    /* One pass of memchr (not a count, then memchr): in a log of long lines memchr skips 32 bytes
     * at a time, and the count pass was most of a scan's work past the read. */
    const unsigned char *data = (const unsigned char *)view.buf;
    Py_ssize_t found = 0, capacity = 64;
    long long *out = PyMem_RawMalloc((size_t)capacity * sizeof(long long));
    int failed = out == NULL;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *at = data, *stop = data + end;
    while (!failed && at < stop && (at = memchr(at, '\n', (size_t)(stop - at))) != NULL) {
        if (found == capacity) {
            long long *grown = PyMem_RawRealloc(out, 2 * (size_t)capacity * sizeof(long long));
            if (grown == NULL) {
                failed = 1;
                break;
            }
            out = grown;
            capacity *= 2;
        }
        out[found++] = base + (long long)(at - data);
        at++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyObject *packed = failed ? PyErr_NoMemory()
                              : PyBytes_FromStringAndSize((const char *)out, found * (Py_ssize_t)sizeof(long long));
    PyMem_RawFree(out);
    return packed;
}

static PyObject *brackets(PyObject *module, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    Py_ssize_t found;
    Py_BEGIN_ALLOW_THREADS
    found = count_bytes((const unsigned char *)view.buf, view.len, '[', '{');
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyObject *occurrences(PyObject *module, PyObject *args) {
    Py_buffer view, marker;
    if (!PyArg_ParseTuple(args, "y*y*", &view, &marker)) return NULL;
    if (marker.len == 0) {
        PyBuffer_Release(&view);
        PyBuffer_Release(&marker);
        PyErr_SetString(PyExc_ValueError, "empty marker");
        return NULL;
    }
    Py_ssize_t found = 0;
    Py_BEGIN_ALLOW_THREADS
    const char *at = view.buf, *stop = (const char *)view.buf + view.len;
    while (stop - at >= marker.len && (at = memmem(at, (size_t)(stop - at), marker.buf, (size_t)marker.len)) != NULL) {
        found++;
        at += marker.len; /* not overlapping, as bytes.count */
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyBuffer_Release(&marker);
    return PyLong_FromSsize_t(found);
}

/* Whether the escape at `at` (`\uXXXX`) is a high surrogate, `\uD800` to `\uDBFF`: with the escape
 * after it, one character (or two, when that is not a low surrogate: the cut then keeps more). */
static int high_surrogate(const unsigned char *at) {
    unsigned char second = at[3];
    return (at[2] == 'd' || at[2] == 'D') &&
           (second == '8' || second == '9' || second == 'a' || second == 'b' || second == 'A' || second == 'B');
}

/* Where the string whose characters start at `at` is cut to `keep` characters (a character is a
 * byte that does not continue a UTF-8 sequence, or an escape: a surrogate pair's two one), or where its closing
 * quote is when it is not that long; `*closed` says which. NULL when the text ends first. */
static const unsigned char *string_cut(const unsigned char *at, const unsigned char *end, Py_ssize_t keep, int *closed) {
    Py_ssize_t characters = 0;
    while (at < end) {
        unsigned char byte = *at;
        if (byte == '"') {
            *closed = 1;
            return at;
        }
        if ((byte & 0xC0) == 0x80) { /* continues a UTF-8 sequence */
            at++;
            continue;
        }
        if (characters == keep) {
            *closed = 0;
            return at;
        }
        characters++;
        Py_ssize_t step = byte != '\\' ? 1 : end - at > 1 && at[1] == 'u' ? 6 : 2;
        if (step == 6 && end - at >= 12 && high_surrogate(at) && at[6] == '\\' && at[7] == 'u') step = 12;
        if (end - at < step) break;
        at += step;
    }
    return NULL;
}

/* The closing quote of a string from `at` on (the first quote after an even run of backslashes). */
static const unsigned char *closing_quote(const unsigned char *at, const unsigned char *end) {
    while (at < end) {
        const unsigned char *quote = memchr(at, '"', (size_t)(end - at));
        if (quote == NULL) return NULL;
        const unsigned char *slash = quote;
        while (slash > at && slash[-1] == '\\') slash--;
        if ((quote - slash) % 2 == 0) return quote;
        at = quote + 1;
    }
    return NULL;
}

static PyObject *shortened(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t keep;
    if (!PyArg_ParseTuple(args, "y*n", &view, &keep)) return NULL;
    if (keep < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "keep is negative");
        return NULL;
    }
    const unsigned char *start = view.buf, *end = start + view.len, *at = start, *copied = start;
    unsigned char *out = NULL, *written = NULL;
    int failed = 0;
    if (view.len > keep) {
        while ((at = memchr(at, '"', (size_t)(end - at))) != NULL) {
            int closed;
            const unsigned char *cut = string_cut(at + 1, end, keep, &closed);
            if (cut == NULL) break; /* not JSON: the decoder says what is wrong */
            if (closed) {
                at = cut + 1;
                continue;
            }
            const unsigned char *quote = closing_quote(cut, end);
            if (quote == NULL) break;
            if (out == NULL && (out = written = PyMem_RawMalloc((size_t)view.len)) == NULL) {
                failed = 1;
                break;
            }
            memcpy(written, copied, (size_t)(cut - copied));
            written += cut - copied;
            copied = quote; /* the closing quote and what follows */
            at = quote + 1;
        }
    }
    PyObject *result;
    if (failed) {
        result = PyErr_NoMemory();
    } else if (out == NULL) {
        result = Py_NewRef(Py_None);
    } else {
        memcpy(written, copied, (size_t)(end - copied));
        written += end - copied;
        result = PyBytes_FromStringAndSize((const char *)out, written - out);
    }
    PyMem_RawFree(out);
    PyBuffer_Release(&view);
    return result;
}

/* Nesting past this is not measured: the encoder is left to say what it makes of it. */
#define MEASURED_DEPTH 200

/* What each ASCII character adds to a str's length when the C encoder escapes it (escape_unicode,
 * ensure_ascii=False): one (a backslash) for a quote, a backslash, BS, FF, LF, CR and TAB, five for the
 * other control characters (written \u00XX). */
static const unsigned char escape_extra[128] = {
    5, 5, 5, 5, 5, 5, 5, 5, 1, 1, 1, 5, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

#define ESCAPES_OF(type)                                                            \
    do {                                                                            \
        const type *chars = data;                                                   \
        for (Py_ssize_t i = 0; i < length; i++) {                                   \
            if (chars[i] < 128) extra += escape_extra[chars[i]];                    \
        }                                                                           \
    } while (0)

/* The characters of a str as json.dumps(..., ensure_ascii=False) writes it: its own, its quotes and
 * its escapes' (see escape_extra); -1 (no error set) when it cannot be read. */
static Py_ssize_t string_length(PyObject *text) {
    if (PyUnicode_READY(text) < 0) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), extra = 0;
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: ESCAPES_OF(Py_UCS1); break;
    case PyUnicode_2BYTE_KIND: ESCAPES_OF(Py_UCS2); break;
    default: ESCAPES_OF(Py_UCS4); break;
    }
    return length + 2 + extra;
}

/* The characters of `value` as json.dumps(value, ensure_ascii=False) writes it; -1 (no error set)
 * for what it does not measure: a type other than JSON's exact ones, a key that is not a str,
 * nesting past MEASURED_DEPTH, a number whose repr fails. */
static Py_ssize_t value_length(PyObject *value, int depth) {
    if (PyUnicode_CheckExact(value)) return string_length(value);
    if (value == Py_None || value == Py_True) return 4;
    if (value == Py_False) return 5;
    if (PyLong_CheckExact(value) || PyFloat_CheckExact(value)) {
        if (PyFloat_CheckExact(value)) {
            double number = PyFloat_AS_DOUBLE(value);
            if (Py_IS_NAN(number)) return 3;                  /* NaN */
            if (Py_IS_INFINITY(number)) return number > 0 ? 8 : 9; /* Infinity, -Infinity */
        }
        PyObject *text = Py_TYPE(value)->tp_repr(value);
        if (text == NULL) {
            PyErr_Clear();
            return -1;
        }
        Py_ssize_t found = PyUnicode_GET_LENGTH(text);
        Py_DECREF(text);
        return found;
    }
    if (depth >= MEASURED_DEPTH) return -1;
    Py_ssize_t found = 2; /* the brackets */
    if (PyList_CheckExact(value)) {
        Py_ssize_t count = PyList_GET_SIZE(value);
        for (Py_ssize_t i = 0; i < count; i++) {
            Py_ssize_t item = value_length(PyList_GET_ITEM(value, i), depth + 1);
            if (item < 0) return -1;
            found += item + (i ? 2 : 0); /* ", " before each but the first */
        }
        return found;
    }
    if (PyDict_CheckExact(value)) {
        Py_ssize_t position = 0;
        PyObject *key, *member;
        int first = 1;
        while (PyDict_Next(value, &position, &key, &member)) {
            Py_ssize_t name = PyUnicode_CheckExact(key) ? string_length(key) : -1;
            Py_ssize_t item = name < 0 ? -1 : value_length(member, depth + 1);
            if (item < 0) return -1;
            found += name + 2 + item + (first ? 0 : 2); /* ": " after the key, ", " between */
            first = 0;
        }
        return found;
    }
    return -1;
}

static PyObject *encoded_length(PyObject *module, PyObject *value) {
    Py_ssize_t found = value_length(value, 0);
    if (found < 0) Py_RETURN_NONE;
    return PyLong_FromSsize_t(found);
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS, "count(buffer, end): the newlines among the first end bytes of buffer."},
    {"offsets", offsets, METH_VARARGS,
     "offsets(buffer, end, base): base plus the offset of each newline among the first end bytes of buffer, "
     "packed as native 64-bit integers."},
    {"brackets", brackets, METH_VARARGS, "brackets(buffer): the [ and { in buffer (a JSON line's bytes)."},
    {"occurrences", occurrences, METH_VARARGS,
     "occurrences(buffer, marker): how many times marker occurs in buffer, not overlapping (bytes.count)."},
    {"shortened", shortened, METH_VARARGS,
     "shortened(buffer, keep): the JSON text in buffer with each string longer than keep characters cut to "
     "its first keep; None when none is that long (or the text ends inside a string)."},
    {"encoded_length", encoded_length, METH_O,
     "encoded_length(value): the characters of json.dumps(value, ensure_ascii=False), without making it; None "
     "for a value it does not measure (not JSON's exact types, a key not a str, nested deeper than 200)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {PyModuleDef_HEAD_INIT, "_newlines", NULL, -1, methods};

PyMODINIT_FUNC PyInit__newlines(void) { return PyModule_Create(&definition); }
