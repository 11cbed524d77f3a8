/* ga_npy: NumPy's .npy format (see ga_npy.h; the format is
 * numpy/lib/format.py: magic, version, a little-endian header length, a
 * Python dict literal padded with spaces and '\n' to 64 bytes, the data). */
#include "ga_npy.h"

#include "cm_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ga_npy hands out little-endian data as native: a little-endian host is assumed"
#endif

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
#define ALIGN 64           /* NumPy's ARRAY_ALIGN: the data starts at a multiple of it */
#define GROWTH_DIGITS 21   /* NumPy's GROWTH_AXIS_MAX_DIGITS: spare room after the dict */
#define HEADER_MAX (1u << 20) /* NumPy writes < 1 KiB for gpuc's dtypes; refuse absurd ones */
#define SHAPE_TEXT (GA_MAX_DIMS * 22 + 4)

#define FAIL(...) (CM_ERROR(err, GA_E_FILE, __VA_ARGS__), -1)

/* ---- shapes ---- */

/* Python's repr of the shape tuple: "()", "(3,)", "(2, 3)". */
static void shape_repr(int ndim, const int64_t *shape, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (n < len)
        snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
}

/* *bytes of a C array of dtype and shape; -1 (err, code) on a negative
 * dimension or a size past INT64_MAX bytes. */
static int shape_bytes(ga_dtype_t dtype, int ndim, const int64_t *shape, size_t *bytes, int code,
                       cm_error_t *err)
{
    char text[SHAPE_TEXT];
    int64_t n = (int64_t)ga_dtype_size(dtype);
    int zero = 0;
    for (int i = 0; i < ndim; i++)
        zero |= shape[i] == 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            shape_repr(ndim, shape, text, sizeof text);
            CM_ERROR(err, code, "shape %s has a negative dimension", text);
            return -1;
        }
        if (!zero && shape[i] > INT64_MAX / n) {
            shape_repr(ndim, shape, text, sizeof text);
            CM_ERROR(err, code, "shape %s of %s overflows: more than 2^63 bytes", text,
                     ga_dtype_name(dtype));
            return -1;
        }
        n = zero ? 0 : n * shape[i];
    }
    if ((uint64_t)n > SIZE_MAX) {
        CM_ERROR(err, code, "%" PRId64 " bytes do not fit in this machine's memory", n);
        return -1;
    }
    *bytes = (size_t)n;
    return 0;
}

/* ---- reading the header dict ---- */

typedef struct cursor {
    const char *p, *end;
} cursor_t;

static void skip_space(cursor_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Skips space, then consumes ch if it comes next. */
static int take(cursor_t *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* Consumes word if it comes next as a whole identifier. */
static int take_word(cursor_t *c, const char *word)
{
    size_t n = strlen(word);
    skip_space(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    char next = c->p + n < c->end ? (char)(c->p[n] | 0x20) : 0;
    if (next == '_' || (next >= 'a' && next <= 'z'))
        return 0;
    c->p += n;
    return 1;
}

static int syntax(const cursor_t *c, const char *expected, cm_error_t *err)
{
    int show = (int)(c->end - c->p < 32 ? c->end - c->p : 32);
    return FAIL("bad .npy header: expected %s at \"%.*s\"", expected, show, c->p);
}

/* A quoted Python string (no escapes: NumPy's keys and type strings have
 * none) into out; -1 (err) when there is none or it is longer than cap - 1. */
static int read_string(cursor_t *c, char *out, size_t cap, const char *what, cm_error_t *err)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return syntax(c, what, err);
    const char *q = memchr(c->p + 1, *c->p, (size_t)(c->end - c->p - 1));
    if (!q)
        return syntax(c, "a closing quote", err);
    size_t n = (size_t)(q - c->p - 1);
    if (n >= cap)
        return FAIL("bad .npy header: %s '%.*s...' is too long", what, (int)(cap - 1), c->p + 1);
    memcpy(out, c->p + 1, n);
    out[n] = 0;
    c->p = q + 1;
    return 0;
}

/* What a NumPy type string gpuc lacks holds, by its kind character. */
static const struct {
    char kind;
    const char *what;
} foreign_kinds[] = {
    {'U', "unicode strings"}, {'S', "byte strings"},      {'a', "byte strings"},
    {'O', "Python objects"},  {'V', "raw bytes (void)"},  {'M', "datetime64"},
    {'m', "timedelta64"},     {'f', "a float size gpuc does not have"},
    {'c', "a complex size gpuc does not have"},           {'g', "long double"},
    {'G', "complex long double"}, {'i', "an integer size gpuc does not have"},
    {'u', "an integer size gpuc does not have"},
};

static int parse_descr(cursor_t *c, ga_npy_info_t *info, cm_error_t *err)
{
    skip_space(c);
    if (c->p < c->end && *c->p == '[') { /* a list of fields: a structured dtype */
        const char *start = c->p;
        int depth = 0;
        do {
            depth += *c->p == '[' || *c->p == '(';
            depth -= *c->p == ']' || *c->p == ')';
            c->p++;
        } while (depth > 0 && c->p < c->end);
        int n = (int)(c->p - start);
        return FAIL("the structured dtype %.*s%s is not an array dtype gpuc has "
                    "(save each field as its own array)", n > 80 ? 80 : n, start, n > 80 ? "..." : "");
    }
    char descr[64];
    if (read_string(c, descr, sizeof descr, "'descr' as a quoted type string", err))
        return -1;
    char order = strchr("<>|=!", descr[0]) && descr[0] ? descr[0] : '=';
    const char *name = descr + (order == descr[0]);
    int d = ga_dtype_from_name(name);
    if (d < 0) {
        const char *what = "not a NumPy type string";
        for (size_t i = 0; i < sizeof foreign_kinds / sizeof foreign_kinds[0]; i++)
            if (name[0] == foreign_kinds[i].kind)
                what = foreign_kinds[i].what;
        return FAIL("'%s' (%s) is not an array dtype gpuc has (it has bool, int8 ... int64, "
                    "uint8 ... uint64, float16, float32, float64, complex64, complex128)",
                    descr, what);
    }
    info->dtype = (ga_dtype_t)d;
    info->big_endian = (order == '>' || order == '!') && ga_dtype_size(info->dtype) > 1;
    return 0;
}

static int parse_fortran_order(cursor_t *c, ga_npy_info_t *info, cm_error_t *err)
{
    if (take_word(c, "True"))
        info->fortran_order = 1;
    else if (take_word(c, "False"))
        info->fortran_order = 0;
    else
        return syntax(c, "True or False for 'fortran_order'", err);
    return 0;
}

/* A tuple of integers: "()", "(3,)", "(2, 3)", "(2, 3,)"; "(3L,)" as
 * Python 2's NumPy wrote it. More than GA_MAX_DIMS are counted, not kept. */
static int parse_shape(cursor_t *c, ga_npy_info_t *info, cm_error_t *err)
{
    if (!take(c, '('))
        return syntax(c, "a tuple for 'shape'", err);
    int n = 0, comma = 0;
    while (!take(c, ')')) {
        skip_space(c);
        int neg = c->p < c->end && *c->p == '-';
        c->p += neg;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return syntax(c, "an integer in 'shape'", err);
        int64_t v = 0;
        for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
            if (v > (INT64_MAX - (*c->p - '0')) / 10)
                return FAIL("bad .npy header: dimension %d of 'shape' overflows 64 bits", n);
            v = v * 10 + (*c->p - '0');
        }
        if (c->p < c->end && *c->p == 'L')
            c->p++;
        if (n < GA_MAX_DIMS)
            info->shape[n] = neg ? -v : v;
        n++;
        comma = take(c, ',');
        if (!comma && !take(c, ')'))
            return syntax(c, "',' or ')' in 'shape'", err);
        if (!comma)
            break;
    }
    if (n == 1 && !comma)
        return FAIL("bad .npy header: 'shape' (%" PRId64 ") is not a tuple (a 1-d shape is (%" PRId64
                    ",))", info->shape[0], info->shape[0]);
    if (n > GA_MAX_DIMS)
        return FAIL("the array has %d dimensions; gpuc arrays have at most %d", n, GA_MAX_DIMS);
    info->ndim = n;
    return 0;
}

typedef int (*value_fn)(cursor_t *c, ga_npy_info_t *info, cm_error_t *err);

static const struct {
    const char *key;
    value_fn parse;
} header_keys[] = {
    {"descr", parse_descr},
    {"fortran_order", parse_fortran_order},
    {"shape", parse_shape},
};
enum { NKEYS = sizeof header_keys / sizeof header_keys[0] };

static int parse_dict(cursor_t *c, ga_npy_info_t *info, cm_error_t *err)
{
    int seen[NKEYS] = {0};
    if (!take(c, '{'))
        return syntax(c, "the header dict's '{'", err);
    while (!take(c, '}')) {
        char key[32];
        if (read_string(c, key, sizeof key, "a quoted key", err))
            return -1;
        int k = 0;
        while (k < NKEYS && strcmp(key, header_keys[k].key) != 0)
            k++;
        if (k == NKEYS)
            return FAIL("bad .npy header: unknown key '%s' (a header has 'descr', 'fortran_order' "
                        "and 'shape')", key);
        if (seen[k]++)
            return FAIL("bad .npy header: '%s' is given twice", key);
        if (!take(c, ':'))
            return syntax(c, "':' after the key", err);
        if (header_keys[k].parse(c, info, err))
            return -1;
        if (!take(c, ',')) {
            if (!take(c, '}'))
                return syntax(c, "',' or '}' after a value", err);
            break;
        }
    }
    skip_space(c);
    if (c->p != c->end)
        return syntax(c, "only padding after the header dict", err);
    for (int k = 0; k < NKEYS; k++)
        if (!seen[k])
            return FAIL("bad .npy header: it has no '%s'", header_keys[k].key);
    return 0;
}

/* ---- the prefix: magic, version, header length ---- */

/* *prefix (10 or 12 bytes) and *hlen (the dict's length) from buf[0, len). */
static int parse_prefix(const unsigned char *buf, size_t len, size_t *prefix, size_t *hlen,
                        cm_error_t *err)
{
    if (memcmp(buf, MAGIC, len < MAGIC_LEN ? len : MAGIC_LEN) != 0)
        return FAIL("not a .npy file: it does not start with \"\\x93NUMPY\"");
    if (len < MAGIC_LEN + 2)
        return FAIL("truncated: %zu bytes, not even a .npy version", len);
    int major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return FAIL("unknown .npy format version %d.%d (gpuc reads 1.0, 2.0 and 3.0)", major, minor);
    *prefix = major == 1 ? 10 : 12;
    if (len < *prefix)
        return FAIL("truncated: %zu bytes, shorter than a version %d.0 prefix (%zu)", len, major,
                    *prefix);
    *hlen = buf[8] | (size_t)buf[9] << 8;
    if (major > 1)
        *hlen |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    return 0;
}

static int header_past_end(size_t hlen, size_t avail, cm_error_t *err)
{
    return FAIL("truncated: the header says it is %zu bytes long, but only %zu bytes follow its "
                "prefix", hlen, avail);
}

int ga_npy_parse_header(const unsigned char *buf, size_t len, ga_npy_info_t *info, cm_error_t *err)
{
    size_t prefix, hlen, bytes;
    memset(info, 0, sizeof *info);
    if (parse_prefix(buf, len, &prefix, &hlen, err))
        return -1;
    if (hlen > len - prefix)
        return header_past_end(hlen, len - prefix, err);
    cursor_t c = {(const char *)buf + prefix, (const char *)buf + prefix + hlen};
    if (parse_dict(&c, info, err) ||
        shape_bytes(info->dtype, info->ndim, info->shape, &bytes, GA_E_FILE, err))
        return -1;
    info->header_bytes = prefix + hlen;
    return 0;
}

/* ---- writing the header ---- */

unsigned char *ga_npy_format_header(ga_dtype_t dtype, int ndim, const int64_t *shape, size_t *len)
{
    if (!ga_dtype_valid(dtype) || ndim < 0 || ndim > GA_MAX_DIMS)
        return NULL;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return NULL;
    char text[SHAPE_TEXT], dict[SHAPE_TEXT + 128];
    shape_repr(ndim, shape, text, sizeof text);
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     ga_dtype_npy(dtype), text);
    /* Spare room for growing the first axis in place, as np.save leaves it. */
    int spare = ndim ? GROWTH_DIGITS - snprintf(NULL, 0, "%" PRId64, shape[0]) : 0;
    size_t dlen = (size_t)n + (size_t)(spare > 0 ? spare : 0) + 1; /* + the final '\n' */
    size_t prefix = 10, pad = ALIGN - (prefix + dlen) % ALIGN;
    if (dlen + pad > 0xffff) {
        prefix = 12;
        pad = ALIGN - (prefix + dlen) % ALIGN;
    }
    size_t hlen = dlen + pad;
    unsigned char *out = malloc(prefix + hlen);
    if (!out)
        return NULL;
    memcpy(out, MAGIC, MAGIC_LEN);
    out[6] = prefix == 10 ? 1 : 2;
    out[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        out[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(out + prefix, dict, (size_t)n);
    memset(out + prefix + n, ' ', hlen - (size_t)n - 1);
    out[prefix + hlen - 1] = '\n';
    *len = prefix + hlen;
    return out;
}

/* ---- files ---- */

/* Reads n bytes at off; the count read (short at the end of the file), -1 on error. */
static ssize_t pread_all(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Reverses the bytes of each unit-byte word of data[0, bytes). */
static void swap_bytes(unsigned char *data, size_t bytes, size_t unit)
{
    for (size_t i = 0; i + unit <= bytes; i += unit)
        for (size_t a = i, b = i + unit - 1; a < b; a++, b--) {
            unsigned char t = data[a];
            data[a] = data[b];
            data[b] = t;
        }
}

/* dst (C order) = src (Fortran order, the same shape). */
static void fortran_to_c(const unsigned char *src, unsigned char *dst, int ndim, const int64_t *shape,
                         size_t elsize, size_t count)
{
    int64_t idx[GA_MAX_DIMS] = {0}, stride[GA_MAX_DIMS]; /* Fortran strides, in elements */
    for (int k = 0; k < ndim; k++)
        stride[k] = k ? stride[k - 1] * shape[k - 1] : 1;
    int64_t off = 0;
    for (size_t i = 0; i < count; i++) {
        memcpy(dst + i * elsize, src + (size_t)off * elsize, elsize);
        for (int k = ndim - 1; k >= 0; k--) { /* the next C index: the last axis fastest */
            if (++idx[k] < shape[k]) {
                off += stride[k];
                break;
            }
            off -= stride[k] * (shape[k] - 1);
            idx[k] = 0;
        }
    }
}

/* Turns the file's bytes (data, *bytes long) into C order, little-endian,
 * bools 0/1; may replace *data. -1 when out of memory. */
static int to_native(const ga_npy_info_t *info, unsigned char **data, size_t bytes)
{
    size_t elsize = ga_dtype_size(info->dtype), count = bytes / elsize;
    if (info->big_endian) /* complex: each of the two parts */
        swap_bytes(*data, bytes, ga_dtype_kind(info->dtype) == GA_KIND_COMPLEX ? elsize / 2 : elsize);
    if (info->dtype == GA_BOOL)
        for (size_t i = 0; i < bytes; i++)
            (*data)[i] = (*data)[i] != 0;
    if (info->fortran_order && info->ndim > 1 && count > 1) {
        unsigned char *c = malloc(bytes);
        if (!c)
            return -1;
        fortran_to_c(*data, c, info->ndim, info->shape, elsize, count);
        free(*data);
        *data = c;
    }
    return 0;
}

/* Reads and parses the header of the open file fd (size bytes). */
static int load_header(int fd, size_t size, ga_npy_info_t *info, cm_error_t *err)
{
    unsigned char head[12];
    size_t prefix, hlen, n = size < sizeof head ? size : sizeof head;
    if (pread_all(fd, head, n, 0) != (ssize_t)n)
        return FAIL("cannot read: %s", strerror(errno));
    if (parse_prefix(head, n, &prefix, &hlen, err))
        return -1;
    if (hlen > size - prefix)
        return header_past_end(hlen, size - prefix, err);
    if (hlen > HEADER_MAX)
        return FAIL("a header of %zu bytes (gpuc reads headers of up to %u)", hlen, HEADER_MAX);
    unsigned char *buf = malloc(prefix + hlen);
    if (!buf)
        return FAIL("out of memory for a header of %zu bytes", hlen);
    int rc = pread_all(fd, buf, prefix + hlen, 0) == (ssize_t)(prefix + hlen)
                 ? ga_npy_parse_header(buf, prefix + hlen, info, err)
                 : FAIL("cannot read: %s", strerror(errno));
    free(buf);
    return rc;
}

/* Reads the data that follows the header of fd (size bytes) into *data. */
static int load_data(int fd, size_t size, const ga_npy_info_t *info, unsigned char **data,
                     cm_error_t *err)
{
    size_t bytes, have = size - info->header_bytes;
    char text[SHAPE_TEXT];
    shape_bytes(info->dtype, info->ndim, info->shape, &bytes, GA_E_FILE, err);
    shape_repr(info->ndim, info->shape, text, sizeof text);
    if (have != bytes)
        return FAIL("%s: the header promises %zu bytes of data (%s, shape %s) but the file has "
                    "%zu after its %zu header bytes", have < bytes ? "truncated" : "too long",
                    bytes, ga_dtype_name(info->dtype), text, have, info->header_bytes);
    *data = malloc(bytes ? bytes : 1);
    if (!*data)
        return FAIL("out of memory for %zu bytes of data (shape %s)", bytes, text);
    if (pread_all(fd, *data, bytes, (off_t)info->header_bytes) != (ssize_t)bytes)
        return FAIL("cannot read the data: %s", errno ? strerror(errno) : "the file shrank");
    if (to_native(info, data, bytes))
        return FAIL("out of memory for %zu bytes of data (shape %s)", bytes, text);
    return 0;
}

int ga_npy_load(const char *path, ga_npy_info_t *info, void **data, cm_error_t *err)
{
    cm_error_t e = {0};
    unsigned char *buf = NULL;
    struct stat st;
    *data = NULL;
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return FAIL("cannot open '%s': %s", path, strerror(errno));
    int rc = fstat(fd, &st) != 0        ? FAIL("cannot read '%s': %s", path, strerror(errno))
             : S_ISDIR(st.st_mode)      ? FAIL("cannot read '%s': it is a directory", path)
             : load_header(fd, (size_t)st.st_size, info, &e) ||
                       load_data(fd, (size_t)st.st_size, info, &buf, &e)
                 ? FAIL("'%s': %s", path, e.text)
                 : 0;
    close(fd);
    if (rc) {
        free(buf);
        return -1;
    }
    *data = buf;
    return 0;
}

int ga_npy_save(const char *path, ga_dtype_t dtype, int ndim, const int64_t *shape, const void *data,
                cm_error_t *err)
{
    size_t bytes, hlen;
    if (!ga_dtype_valid(dtype)) {
        CM_ERROR(err, GA_E_DTYPE, "cannot save '%s': %d is not a dtype", path, (int)dtype);
        return -1;
    }
    if (ndim < 0 || ndim > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "cannot save '%s': %d dimensions (at most %d)", path, ndim,
                 GA_MAX_DIMS);
        return -1;
    }
    if (shape_bytes(dtype, ndim, shape, &bytes, GA_E_SHAPE, err))
        return -1;
    if (bytes && !data)
        return FAIL("cannot save '%s': no data", path);
    unsigned char *head = ga_npy_format_header(dtype, ndim, shape, &hlen);
    if (!head)
        return FAIL("cannot save '%s': out of memory", path);
    const void *parts[2] = {head, data};
    size_t lens[2] = {hlen, bytes};
    cm_error_t werr = {0};
    int rc = 0;
    if (cm_file_writev(path, parts, lens, 2, 0666, &werr) != 0)
        rc = FAIL("cannot write '%s': %s", path, strerror(werr.code));
    free(head);
    return rc;
}
