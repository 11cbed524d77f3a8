/* ga_array: the device array — a dtype, a shape of 0 to GA_MAX_DIMS
 * dimensions, strides in elements, on one device (a GPU or the CPU
 * backend), over a buffer that views share.
 *
 * Handles. A ga_array_t * is the handle cells hold (gpuc.h's ga_t). It
 * stays valid memory for the whole session: freeing an array releases its
 * buffer and marks the handle dead (magic GA_DEAD), so a later use is
 * found (ga_array_check) instead of reading freed memory.
 *
 * Lifetime. Every live array is on the live list. At the end of each cell
 * the session sweeps (ga_array_sweep): arrays not held by a session
 * variable and not kept (ga_array_keep) are freed. Views hold their
 * buffer: a buffer is released when its last array goes.
 *
 * Errors are cm_error_t values with codes GA_E_*; the first error wins. */
#ifndef GA_ARRAY_H
#define GA_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "bk.h"
#include "cm_error.h"
#include "ga_dtype.h"

#define GA_MAX_DIMS 8
#define GA_CPU BK_CPU_DEVICE   /* the device number of the CPU backend (-1) */
#define GA_MAGIC 0x47614172u   /* "GaAr": a live array */
#define GA_DEAD 0x64656164u    /* "dead": freed */
#define GA_END INT64_MAX       /* a slice's start or stop left out (Python's None) */

enum {
    GA_E_SHAPE = 20001,   /* a bad shape, size, axis or index */
    GA_E_DTYPE = 20002,   /* an unknown dtype, or one that does not fit */
    GA_E_FREED = 20003,   /* an array used after it was freed, or not an array */
    GA_E_DEVICE = 20004,  /* no such device, or arrays on different devices */
    GA_E_MEMORY = 20005,  /* out of memory (host or device) */
    GA_E_FILE = 20006,    /* a file could not be read or written, or is not .npy */
    GA_E_EXPR = 20007,    /* an expression (ga_expr) or a user's function (ga_udf) that
                             does not parse or type */
    GA_E_VALUE = 20009,   /* an argument out of its range (std < 0, low >= high);
                             20008 is ga_kernel's */
    GA_E_LINALG = 20029,  /* NumPy's LinAlgError: a singular matrix, one not positive
                             definite, a factorisation that did not converge (ga_linalg) */
};

/* An array's memory: a buffer of the backend floor's pool (backend/bk.h),
 * its refs counting the arrays that use it. */
typedef bk_buffer_t ga_buffer_t;

typedef struct ga_array {
    uint32_t magic;                /* GA_MAGIC, GA_DEAD once freed */
    ga_dtype_t dtype;
    int ndim;                      /* 0 .. GA_MAX_DIMS */
    int device;                    /* GA_CPU or a GPU number */
    int64_t shape[GA_MAX_DIMS];
    int64_t strides[GA_MAX_DIMS];  /* in elements; 0 and negative allowed */
    int64_t offset;                /* element [0, ..., 0], in elements from buf->ptr */
    int64_t size;                  /* number of elements (1 for 0-d) */
    ga_buffer_t *buf;              /* NULL once freed */
    unsigned long id;              /* creation order: %memory lists by it */
    int cell;                      /* the cell that made it */
    int kept;                      /* ga_array_keep: the sweep leaves it */
    int marked;                    /* the sweep's mark */
    struct ga_array *prev, *next;  /* the live list */
} ga_array_t;

/* ---- making and freeing ---- */

/* The cell new arrays are counted to (for %memory and messages). */
void ga_array_set_cell(int cell);

/* A new array of shape[0, ndim) on buf (borrowed: its refs go up), with
 * C-order strides and offset 0. NULL with err set on a bad shape. */
ga_array_t *ga_array_on(ga_buffer_t *buf, ga_dtype_t dtype, int ndim, const int64_t *shape,
                        cm_error_t *err);

/* A new C-contiguous array of dtype and shape on device, its memory
 * from the pool, uninitialised. NULL with err set (a bad dtype or
 * shape, no memory). */
ga_array_t *ga_array_new(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                         cm_error_t *err);

/* The number of elements of shape[0, ndim), or -1 (err set) when a
 * dimension is negative or the product overflows; `bytes` of elsize each
 * also checked (size * elsize fits in a size_t). */
int64_t ga_shape_size(int ndim, const int64_t *shape, size_t elsize, cm_error_t *err);

/* The number of elements of an array of dtype and shape, both checked
 * (GA_E_DTYPE, GA_E_SHAPE), or -1 with err set. */
int64_t ga_array_count(ga_dtype_t dtype, int ndim, const int64_t *shape, cm_error_t *err);

/* Frees a (its buffer when no view holds it) and marks it dead. A dead or
 * NULL array is ignored. */
void ga_array_free(ga_array_t *a);

/* 0 when a is a live array; -1 with err set (GA_E_FREED) otherwise. */
int ga_array_check(const ga_array_t *a, cm_error_t *err);

/* Non-zero when p is the handle of a live array (cheap: a hash lookup; p
 * is not dereferenced unless it is one). */
int ga_array_is_live(const void *p);

/* Keeps a through the sweeps (an array held somewhere the session cannot
 * see: a struct, the heap); keep = 0 lets the sweeps have it again. */
void ga_array_keep(ga_array_t *a, int keep);

/* The sweep at the end of a cell: unmark all, mark through roots (the
 * words of the session's variables that may hold handles; any word that
 * is a live handle marks it), then free what is neither marked nor kept.
 * Returns how many arrays were freed. */
size_t ga_array_sweep(const void *const *roots, const size_t *root_bytes, size_t nroots);

/* The live arrays, oldest first (borrowed, for %memory). */
ga_array_t *ga_array_first(void);

/* Frees every array (the session is reset). */
void ga_array_free_all(void);

/* ---- reading the layout ---- */

/* Address of element [0, ..., 0] (a device address on a GPU). */
void *ga_array_data(const ga_array_t *a);

/* Non-zero when a's elements are contiguous in C order. */
int ga_array_is_contiguous(const ga_array_t *a);

/* "(4096, 4096)" / "(3,)" / "()" into buf. */
void ga_shape_text(int ndim, const int64_t *shape, char *buf, size_t len);

/* "gpu0" / "cpu" into buf. */
void ga_device_text(int device, char *buf, size_t len);

/* "float32 (4096, 4096), 64.00 MiB, gpu0" into buf: an array in a line. */
void ga_array_describe(const ga_array_t *a, char *buf, size_t len);

/* "64.00 MiB" / "512 bytes" into buf. */
void ga_bytes_text(size_t bytes, char *buf, size_t len);

/* ---- views (no copies; the view shares a's buffer) ---- */

/* a with a new shape of the same size; one dimension may be -1 (inferred).
 * A view when a's layout allows it, else NULL with err (GA_E_SHAPE: "copy
 * it first") — reshape never copies silently. */
ga_array_t *ga_array_reshape(ga_array_t *a, int ndim, const int64_t *shape, cm_error_t *err);

/* a[..., start:stop:step, ...] on axis, as Python slices it (negative
 * start/stop count from the end, GA_END = left out, step != 0). */
ga_array_t *ga_array_slice(ga_array_t *a, int axis, int64_t start, int64_t stop, int64_t step,
                           cm_error_t *err);

/* a[i] along axis (that axis dropped; i < 0 counts from the end). */
ga_array_t *ga_array_index(ga_array_t *a, int axis, int64_t i, cm_error_t *err);

/* The axes of a in the order axes[0, ndim) (NULL: reversed, a transpose). */
ga_array_t *ga_array_permute(ga_array_t *a, const int *axes, cm_error_t *err);

#endif
