/* ga_multi: the all-reduce across devices, and the device count (see
 * ga_multi.h). */
#include "ga_multi.h"

#include <string.h>

#include "bk.h"
#include "ga_api.h"
#include "ga_copy.h"
#include "ga_map.h"

static const struct {
    const char *name;
    int floor_op;     /* bk_allreduce's */
    const char *expr; /* the same through the array math: a the result so far, b the next */
} ops[] = {
    {"sum", BK_REDUCE_SUM, "a + b"},
    {"max", BK_REDUCE_MAX, "maximum(a, b)"},
    {"min", BK_REDUCE_MIN, "minimum(a, b)"},
};

/* The floor's element type of dtype, or -1 when the collective library has
 * none (bool, 16-bit integers, complex: they go through the array math). */
static int floor_type(ga_dtype_t dtype)
{
    switch (dtype) {
    case GA_I8: return BK_ELEM_I8;
    case GA_U8: return BK_ELEM_U8;
    case GA_I32: return BK_ELEM_I32;
    case GA_U32: return BK_ELEM_U32;
    case GA_I64: return BK_ELEM_I64;
    case GA_U64: return BK_ELEM_U64;
    case GA_F16: return BK_ELEM_F16;
    case GA_F32: return BK_ELEM_F32;
    case GA_F64: return BK_ELEM_F64;
    default: return -1;
    }
}

/* 0 when the arrays can be reduced together; -1 with err. */
static int check(ga_array_t *const *arrays, int n, cm_error_t *err)
{
    if (n < 1 || n > BK_MAX_ORDINALS) {
        CM_ERROR(err, GA_E_VALUE, "%d arrays: give 1 to %d, one per device", n, BK_MAX_ORDINALS);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (ga_array_check(arrays[i], err) != 0)
            return -1;
        const ga_array_t *a = arrays[i], *a0 = arrays[0];
        char d1[16], d2[16];
        ga_device_text(a->device, d1, sizeof d1);
        if (!ga_array_is_contiguous(a)) {
            CM_ERROR(err, GA_E_SHAPE, "array %d is a view that is not contiguous: ga_copy it", i);
            return -1;
        }
        if (a->dtype != a0->dtype) {
            CM_ERROR(err, GA_E_DTYPE, "array %d is %s, array 0 %s: one dtype for all", i,
                     ga_dtype_name(a->dtype), ga_dtype_name(a0->dtype));
            return -1;
        }
        if (a->ndim != a0->ndim ||
            memcmp(a->shape, a0->shape, (size_t)a->ndim * sizeof *a->shape) != 0) {
            CM_ERROR(err, GA_E_SHAPE, "array %d (on %s) has another shape than array 0", i, d1);
            return -1;
        }
        for (int k = 0; k < i; k++)
            if (arrays[k]->device == a->device) {
                ga_device_text(arrays[k]->device, d2, sizeof d2);
                CM_ERROR(err, GA_E_DEVICE,
                         "arrays %d and %d are both on %s: one array per device", k, i, d2);
                return -1;
            }
    }
    return 0;
}

/* Through peer copies and the array math, on the first array's device. */
static int through_copies(ga_array_t *const *arrays, int n, const char *expr, cm_error_t *err)
{
    ga_array_t *first = arrays[0];
    size_t bytes = (size_t)first->size * ga_dtype_size(first->dtype);
    for (int i = 1; i < n; i++) {
        ga_array_t *b = ga_copy_array(arrays[i], first->device, err);
        if (!b)
            return -1;
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = first}, {.kind = GA_ARG_ARRAY, .a = b}};
        ga_array_t *r = ga_map_eval(expr, first, 2, args, err);
        ga_array_free(b);
        if (!r)
            return -1;
    }
    for (int i = 1; i < n; i++)
        if (bk_mem_peer(arrays[i]->device, ga_array_data(arrays[i]), first->device,
                        ga_array_data(first), bytes, err) != 0)
            return -1;
    return 0;
}

int ga_multi_allreduce(ga_array_t *const *arrays, int n, const char *op, cm_error_t *err)
{
    size_t k = 0;
    while (k < sizeof ops / sizeof *ops && (!op || strcmp(op, ops[k].name) != 0))
        k++;
    if (k == sizeof ops / sizeof *ops) {
        CM_ERROR(err, GA_E_VALUE, "unknown reduction \"%s\": \"sum\", \"max\" or \"min\"",
                 op ? op : "(null)");
        return -1;
    }
    if (check(arrays, n, err) != 0)
        return -1;
    if (k > 0 && ga_dtype_kind(arrays[0]->dtype) == GA_KIND_COMPLEX) {
        CM_ERROR(err, GA_E_DTYPE, "%s of complex numbers: they have no order", op);
        return -1;
    }
    int type = floor_type(arrays[0]->dtype);
    if (type >= 0 && n > 1) {
        bk_device_t devices[BK_MAX_ORDINALS];
        void *bufs[BK_MAX_ORDINALS];
        for (int i = 0; i < n; i++) {
            devices[i] = arrays[i]->device;
            bufs[i] = ga_array_data(arrays[i]);
        }
        int rc = bk_allreduce(n, devices, bufs, (size_t)arrays[0]->size, type, ops[k].floor_op,
                              err);
        if (rc <= 0)
            return rc;
    }
    return through_copies(arrays, n, ops[k].expr, err);
}

void ga_api_allreduce(ga_array_t **arrays, int n, const char *op)
{
    cm_error_t err = {0};
    if (!arrays) {
        ga_api_failf("ga_allreduce", GA_E_VALUE, "no arrays given");
        return;
    }
    if (ga_multi_allreduce(arrays, n, op, &err) != 0)
        ga_api_fail("ga_allreduce", &err);
}

int ga_api_device_count(void)
{
    bk_device_t list[2 * BK_MAX_ORDINALS + 1];
    int n = bk_devices(list, (int)(sizeof list / sizeof *list)), gpus = 0;
    for (int i = 0; i < n && i < (int)(sizeof list / sizeof *list); i++)
        gpus += bk_backend(list[i]) == BK_CUDA;
    return gpus ? gpus : bk_sim_device_count();
}
