/* ga_layout: broadcasting and merged dimensions (see ga_layout.h). */
#include "ga_layout.h"

#include <stdio.h>
#include <string.h>

int ga_layout_broadcast(ga_array_t *const *arrays, int n, int *ndim, int64_t *shape,
                        cm_error_t *err)
{
    int nd = 0;
    for (int i = 0; i < n; i++)
        if (arrays[i] && arrays[i]->ndim > nd)
            nd = arrays[i]->ndim;
    for (int k = 0; k < nd; k++)
        shape[k] = 1;
    for (int i = 0; i < n; i++) {
        const ga_array_t *a = arrays[i];
        if (!a)
            continue;
        for (int k = 0; k < a->ndim; k++) {
            int64_t *s = &shape[nd - a->ndim + k], d = a->shape[k];
            if (d == *s || d == 1)
                continue;
            if (*s == 1) {
                *s = d;
                continue;
            }
            char mine[128], theirs[128];
            ga_shape_text(a->ndim, a->shape, mine, sizeof mine);
            ga_shape_text(nd, shape, theirs, sizeof theirs);
            CM_ERROR(err, GA_E_SHAPE, "shapes %s and %s do not broadcast (axis %d: %lld against %lld)",
                     theirs, mine, k - a->ndim, (long long)*s, (long long)d);
            return -1;
        }
    }
    *ndim = nd;
    return 0;
}

void ga_layout_make(ga_layout_t *l, ga_array_t *const *arrays, int nops, int ndim,
                    const int64_t *shape)
{
    memset(l, 0, sizeof *l);
    l->nops = nops;
    l->n = 1;
    for (int k = 0; k < ndim; k++)
        l->n *= shape[k];
    /* strides on the broadcast shape; size-1 dimensions dropped */
    int nd = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 1)
            continue;
        l->shape[nd] = shape[k];
        for (int i = 0; i < nops; i++) {
            const ga_array_t *a = arrays[i];
            int ak = k - (ndim - (a ? a->ndim : 0));
            l->strides[i][nd] = !a || ak < 0 || a->shape[ak] == 1 ? 0 : a->strides[ak];
        }
        nd++;
    }
    /* merge k into k+1 where every operand steps evenly across both */
    int out = 0;
    for (int k = 0; k < nd; k++) {
        if (out > 0) {
            int merge = 1;
            for (int i = 0; i < nops && merge; i++)
                merge = l->strides[i][out - 1] == l->strides[i][k] * l->shape[k];
            if (merge) {
                l->shape[out - 1] *= l->shape[k];
                for (int i = 0; i < nops; i++)
                    l->strides[i][out - 1] = l->strides[i][k];
                continue;
            }
        }
        l->shape[out] = l->shape[k];
        for (int i = 0; i < nops; i++)
            l->strides[i][out] = l->strides[i][k];
        out++;
    }
    l->nd = out;
}

int ga_layout_flat(const ga_layout_t *l, const int *skip)
{
    if (l->nd == 0)
        return 1;
    if (l->nd > 1)
        return 0;
    for (int i = 0; i < l->nops; i++)
        if (!(skip && skip[i]) && l->strides[i][0] != 1)
            return 0;
    return 1;
}
