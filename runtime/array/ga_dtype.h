/* ga_dtype: the element types of device arrays — names as NumPy spells
 * them, sizes, NumPy's .npy type strings, the C types kernels declare,
 * and reading or writing one element as a double or an integer. */
#ifndef GA_DTYPE_H
#define GA_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* The numbering is part of the cell API (gpuc.h's GA_F32 ... and the
 * short names F32 ...): append only. */
typedef enum ga_dtype {
    GA_BOOL = 0,
    GA_I8,
    GA_U8,
    GA_I16,
    GA_U16,
    GA_I32,
    GA_U32,
    GA_I64,
    GA_U64,
    GA_F16,
    GA_F32,
    GA_F64,
    GA_C64,  /* complex64: two float32, real first */
    GA_C128, /* complex128: two float64 */
    GA_NDTYPES
} ga_dtype_t;

/* The dtypes' short names in the order of the enum: gpuc.h's GA_F32 and
 * F32 come from this list (runtime/cell/rt_gpuc_h.c). */
#define GA_DTYPES(X)                                                                         \
    X(BOOL) X(I8) X(U8) X(I16) X(U16) X(I32) X(U32) X(I64) X(U64) X(F16) X(F32) X(F64) X(C64) \
    X(C128)

/* A dtype as cells hold it (gpuc.h's ga_dtype_t): the code above in a
 * struct, so that an int is not taken for a dtype (ga_zeros(4, 4) does not
 * compile in a cell). */
typedef struct ga_cell_dtype {
    int code;
} ga_cell_dtype_t;

/* Kinds, as NumPy's dtype.kind. */
#define GA_KIND_BOOL 'b'
#define GA_KIND_INT 'i'
#define GA_KIND_UINT 'u'
#define GA_KIND_FLOAT 'f'
#define GA_KIND_COMPLEX 'c'

/* Non-zero when d is one of the dtypes above. */
int ga_dtype_valid(int d);

/* Bytes of one element; 0 for an invalid dtype. */
size_t ga_dtype_size(ga_dtype_t d);

/* NumPy's name: "bool", "int8", ..., "float16", "float32", "complex64".
 * Static; "?" for an invalid dtype. */
const char *ga_dtype_name(ga_dtype_t d);

/* The dtype of a NumPy name ("float32", also "f4", "<f4", "float", "int"
 * as NumPy reads them), or -1. */
int ga_dtype_from_name(const char *name);

/* NumPy's kind character (GA_KIND_*). */
char ga_dtype_kind(ga_dtype_t d);

/* The little-endian .npy type string: "|b1", "|i1", "|u1", "<i2", ...,
 * "<f2", "<f4", "<f8", "<c8", "<c16". Static. */
const char *ga_dtype_npy(ga_dtype_t d);

/* The C spelling of one element in kernel source ("float", "double",
 * "int", "unsigned int", "long long", "__half", "bool", ...): what a
 * kernel's pointer parameter must point to for an array of d. Static. */
const char *ga_dtype_ctype(ga_dtype_t d);

/* Whether a kernel parameter declared as param ("const float *__restrict__
 * x") may take an array of d: 1 when its pointee is d's C type (int32_t,
 * long long, __half... spellings included), or void, or a type gpuc does
 * not know (a struct, float4: the kernel's business); 0 when it is
 * another scalar type — then why[] says "the kernel reads double". */
int ga_dtype_fits_param(ga_dtype_t d, const char *param, char *why, size_t len);

/* Element i of data (of dtype d) as a double (complex: the real part) /
 * as a signed or unsigned 64-bit integer (floats truncated). */
double ga_dtype_get_f64(ga_dtype_t d, const void *data, size_t i);
int64_t ga_dtype_get_i64(ga_dtype_t d, const void *data, size_t i);
uint64_t ga_dtype_get_u64(ga_dtype_t d, const void *data, size_t i);
/* The imaginary part of a complex element (0 for other kinds). */
double ga_dtype_get_imag(ga_dtype_t d, const void *data, size_t i);

/* Writes v into element i of data (converted as C converts; float16
 * rounded to nearest even from the double; bool: v != 0). */
void ga_dtype_set_f64(ga_dtype_t d, void *data, size_t i, double v);

/* Writes the integer v into element i exactly, as NumPy puts a Python
 * int (is_unsigned: v holds a uint64's bits): -1 when d is an integer
 * dtype whose range v is outside (NumPy's OverflowError); floats and
 * complex get v's double (NumPy converts through it too); bool v != 0. */
int ga_dtype_set_int(ga_dtype_t d, void *data, size_t i, int64_t v, int is_unsigned);

/* NumPy's promote_types(a, b): the smallest dtype both convert to
 * safely (bool < integers < floats < complex; int8 with uint8 is int16,
 * int64 with uint64 is float64; an integer with float16 is float16 for
 * 8-bit, float32 for 16-bit, float64 for wider). Symmetric. */
ga_dtype_t ga_dtype_promote(ga_dtype_t a, ga_dtype_t b);

/* The float dtype a math function (sqrt, exp, true division...) computes
 * in for an input of d, as NumPy picks its loop: d itself for floats and
 * complex, else ga_dtype_promote(d, float16). */
ga_dtype_t ga_dtype_float_of(ga_dtype_t d);

/* IEEE half <-> float, round to nearest even; double to half rounded
 * once, as NumPy's astype. */
float ga_half_to_float(uint16_t h);
uint16_t ga_float_to_half(float f);
uint16_t ga_double_to_half(double v);

#endif
