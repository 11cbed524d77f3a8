/* ga_npy: NumPy's .npy format on host buffers, so that arrays move to and
 * from Python notebooks unchanged (numpy.lib.format: the magic "\x93NUMPY",
 * a version, a header length, a Python dict literal with 'descr',
 * 'fortran_order' and 'shape', then the raw elements).
 *
 * Reading takes what NumPy writes for gpuc's dtypes in any byte order and
 * either memory order and hands back C-order little-endian data; writing
 * gives exactly the bytes np.save gives for a C-order little-endian array.
 * Nothing here knows the array type: callers copy to and from devices.
 *
 * Errors are cm_error_t values with code GA_E_FILE; the text says what is
 * wrong with which file. */
#ifndef GA_NPY_H
#define GA_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "cm_error.h"
#include "ga_array.h"
#include "ga_dtype.h"

typedef struct ga_npy_info {
    ga_dtype_t dtype;
    int ndim;                       /* 0 .. GA_MAX_DIMS */
    int64_t shape[GA_MAX_DIMS];
    int fortran_order;              /* the file's data is in Fortran order */
    int big_endian;                 /* the file's elements are big-endian ('>f8') */
    size_t header_bytes;            /* where the data starts in the file */
} ga_npy_info_t;

/* Parses the header at buf[0, len): magic, version 1.0/2.0/3.0, the dict
 * (keys in any order, spaces, a trailing comma, "(3,)", "()" for 0-d).
 * 0 with info filled; -1 with err (GA_E_FILE) saying what is wrong: not
 * .npy, an unknown version, truncated, a dtype gpuc does not have (named),
 * more than GA_MAX_DIMS dimensions, a negative or overflowing shape. */
int ga_npy_parse_header(const unsigned char *buf, size_t len, ga_npy_info_t *info, cm_error_t *err);

/* The header np.save writes for a C-order little-endian array of dtype and
 * shape[0, ndim): version 1.0 (2.0 when it must), padded so the data starts
 * at a multiple of 64 bytes. A new buffer (the caller frees it), *len set;
 * NULL on a bad dtype or ndim, or out of memory. */
unsigned char *ga_npy_format_header(ga_dtype_t dtype, int ndim, const int64_t *shape, size_t *len);

/* Reads the .npy file at path: *info, and *data a new malloc'ed buffer (the
 * caller frees it) of the elements in C order and little-endian, bools as
 * 0/1. The file must hold exactly the bytes its header promises. -1 with
 * err on failure, *data NULL and nothing left allocated. */
int ga_npy_load(const char *path, ga_npy_info_t *info, void **data, cm_error_t *err);

/* Writes data (borrowed: C-order, little-endian, dtype and shape[0, ndim))
 * as the .npy file path, atomically (a temporary file beside it, then a
 * rename): path is either the old file or the whole new one. -1 with err. */
int ga_npy_save(const char *path, ga_dtype_t dtype, int ndim, const int64_t *shape, const void *data,
                cm_error_t *err);

#endif
