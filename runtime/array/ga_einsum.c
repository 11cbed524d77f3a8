/* ga_einsum: einsum by matmul or by one product and one sum (see
 * ga_einsum.h). The subscripts are read once into a plan (letters, their
 * sizes, which operand has which) that both ways read. */
#include "ga_einsum.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ga_api.h"
#include "ga_blas.h"
#include "ga_eval.h"
#include "ga_map.h"

#define LETTERS GA_MAX_DIMS

typedef struct plan {
    int nops;
    char in[2][GA_MAX_DIMS + 1]; /* each operand's subscripts */
    char out[LETTERS + 1];       /* the output's */
    char all[LETTERS + 1];       /* every letter: the output's, then the summed */
    int nout, nall;
    int64_t size[LETTERS];       /* of all[k] */
    int seen[LETTERS];           /* all[k] is in an operand */
} plan_t;

static int index_of(const char *s, char c)
{
    const char *p = strchr(s, c);
    return p && c ? (int)(p - s) : -1;
}

/* Reads spec into p against ops; 0 / -1 with err. */
static int parse(const char *spec, int nops, ga_array_t *const *ops, plan_t *p, cm_error_t *err)
{
    memset(p, 0, sizeof *p);
    if (nops < 1 || nops > 2) {
        CM_ERROR(err, GA_E_VALUE, "einsum of %d operands: one or two here (chain two einsums "
                 "for more)", nops);
        return -1;
    }
    if (strstr(spec, "...")) {
        CM_ERROR(err, GA_E_VALUE, "\"%s\": ellipsis (...) is not supported yet: name the axes",
                 spec);
        return -1;
    }
    p->nops = nops;
    int op = 0, len = 0, arrow = 0, counts[128] = {0};
    for (const char *c = spec; *c; c++) {
        if (isspace((unsigned char)*c))
            continue;
        if (*c == ',' && !arrow) {
            if (++op >= nops) {
                CM_ERROR(err, GA_E_VALUE, "\"%s\" has more terms than the %d operand%s given",
                         spec, nops, nops > 1 ? "s" : "");
                return -1;
            }
            len = 0;
        } else if (c[0] == '-' && c[1] == '>' && !arrow) {
            arrow = 1;
            c++;
        } else if (isalpha((unsigned char)*c)) {
            char *dst = arrow ? p->out : p->in[op];
            int n = arrow ? p->nout : len;
            if (n >= GA_MAX_DIMS || (arrow && index_of(p->out, *c) >= 0)) {
                CM_ERROR(err, GA_E_VALUE, "\"%s\": %s", spec, arrow ? "a letter twice in the "
                         "output, or too many" : "more than 8 letters in a term");
                return -1;
            }
            dst[n] = *c;
            if (arrow)
                p->nout++;
            else {
                len++;
                counts[(int)*c]++;
            }
        } else {
            CM_ERROR(err, GA_E_VALUE, "\"%s\": '%c' is not a subscript (letters, ',' and '->')",
                     spec, *c);
            return -1;
        }
    }
    if (op != nops - 1) {
        CM_ERROR(err, GA_E_VALUE, "\"%s\" has %d term%s for %d operands", spec, op + 1,
                 op ? "s" : "", nops);
        return -1;
    }
    if (!arrow) /* implicit: the letters seen once, in alphabetical order */
        for (int c = 'A'; c <= 'z'; c++)
            if (counts[c] == 1 && p->nout < LETTERS)
                p->out[p->nout++] = (char)c;
    memcpy(p->all, p->out, (size_t)p->nout);
    p->nall = p->nout;
    for (int k = 0; k < nops; k++) {
        const char *s = p->in[k];
        if ((int)strlen(s) != ops[k]->ndim) {
            CM_ERROR(err, GA_E_SHAPE, "\"%s\": operand %d has %d dimensions, its term \"%s\" %d",
                     spec, k, ops[k]->ndim, s, (int)strlen(s));
            return -1;
        }
        for (int d = 0; s[d]; d++) {
            int at = index_of(p->all, s[d]);
            if (at < 0) {
                if (p->nall == LETTERS) {
                    CM_ERROR(err, GA_E_VALUE, "\"%s\": more than %d distinct letters", spec,
                             LETTERS);
                    return -1;
                }
                at = p->nall++;
                p->all[at] = s[d];
            }
            if (!p->seen[at]) {
                p->seen[at] = 1;
                p->size[at] = ops[k]->shape[d];
            }
            if (p->size[at] != ops[k]->shape[d]) {
                CM_ERROR(err, GA_E_SHAPE, "\"%s\": the size of '%c' in operand %d (%lld) does "
                         "not match earlier terms (%lld)", spec, s[d], k,
                         (long long)ops[k]->shape[d], (long long)p->size[at]);
                return -1;
            }
        }
    }
    for (int k = 0; k < p->nout; k++)
        if (!p->seen[k]) {
            CM_ERROR(err, GA_E_VALUE, "\"%s\": the output's '%c' is in no operand", spec,
                     p->out[k]);
            return -1;
        }
    return 0;
}

/* Operand k as a view over all the letters (size 1, stride 0 where it has
 * none; a letter twice is its diagonal). */
static ga_array_t *spread(const plan_t *p, ga_array_t *a, int k, cm_error_t *err)
{
    int64_t shape[LETTERS], strides[LETTERS] = {0};
    for (int g = 0; g < p->nall; g++)
        shape[g] = index_of(p->in[k], p->all[g]) >= 0 ? p->size[g] : 1;
    for (int d = 0; d < a->ndim; d++)
        strides[index_of(p->all, p->in[k][d])] += a->strides[d];
    ga_array_t *v = ga_array_on(a->buf, a->dtype, p->nall, shape, err);
    if (!v)
        return NULL;
    memcpy(v->strides, strides, sizeof strides);
    v->offset = a->offset;
    return v;
}

/* The generic way: one product kernel over all the letters, then one sum
 * over the summed ones (merged into one axis), cast back to dtype; one
 * operand whose summed axes merge as a view is summed as it is. */
static ga_array_t *generic(const plan_t *p, ga_array_t *const *ops, cm_error_t *err)
{
    ga_array_t *v[2] = {NULL, NULL}, *prod = NULL, *flat = NULL, *sum = NULL, *r = NULL;
    ga_dtype_t dt = p->nops == 2 ? ga_dtype_promote(ops[0]->dtype, ops[1]->dtype) : ops[0]->dtype;
    ga_arg_t args[2];
    for (int k = 0; k < p->nops; k++) {
        v[k] = spread(p, ops[k], k, err);
        if (!v[k])
            goto done;
        args[k] = (ga_arg_t){.kind = GA_ARG_ARRAY, .a = v[k]};
    }
    char expr[48];
    int64_t shape[LETTERS + 1];
    memcpy(shape, p->size, (size_t)p->nout * sizeof *shape);
    shape[p->nout] = 1;
    for (int g = p->nout; g < p->nall; g++)
        shape[p->nout] *= p->size[g];
    /* one operand summed over letters whose axes merge: the sum reads it as it is */
    cm_error_t quiet = {0};
    if (p->nops == 1 && p->nall > p->nout)
        flat = ga_array_reshape(v[0], p->nout + 1, shape, &quiet);
    if (!flat) {
        snprintf(expr, sizeof expr, p->nops == 2 ? "%s(a * b)" : "%s(a)", ga_dtype_name(dt));
        prod = ga_map_eval(expr, NULL, p->nops, args, err);
        if (!prod)
            goto done;
        if (p->nall == p->nout) {
            r = prod;
            prod = NULL;
            goto done;
        }
        flat = ga_array_reshape(prod, p->nout + 1, shape, err);
    }
    ga_arg_t farg = {.kind = GA_ARG_ARRAY, .a = flat};
    snprintf(expr, sizeof expr, "sum(a, %d)", p->nout);
    sum = flat ? ga_eval(expr, NULL, 1, &farg, err) : NULL;
    if (sum && sum->dtype != dt) {
        ga_arg_t sarg = {.kind = GA_ARG_ARRAY, .a = sum};
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(dt));
        r = ga_map_eval(expr, NULL, 1, &sarg, err);
    } else {
        r = sum;
        sum = NULL;
    }
done:
    ga_array_free(v[0]);
    ga_array_free(v[1]);
    ga_array_free(prod);
    ga_array_free(flat);
    ga_array_free(sum);
    return r;
}

/* 1 when the two operands' subscripts are a matrix product: something
 * summed (without, "ij,ij->ij" and "i,j->ij" are one product kernel). */
static int is_product(const plan_t *p, ga_array_t *const *ops)
{
    if (p->nops != 2 || p->nall == p->nout || ga_dtype_kind(ops[0]->dtype) != GA_KIND_FLOAT ||
        ga_dtype_kind(ops[1]->dtype) != GA_KIND_FLOAT)
        return 0;
    for (int k = 0; k < 2; k++)
        for (int d = 0; p->in[k][d]; d++) {
            char c = p->in[k][d];
            if (index_of(p->in[k] + d + 1, c) >= 0)
                return 0; /* a diagonal */
            if (index_of(p->out, c) < 0 && index_of(p->in[1 - k], c) < 0)
                return 0; /* summed within one operand */
        }
    return 1;
}

/* a's axes for the letters of groups, in that order, merged into one
 * axis per group: a (copied only when its layout does not merge). */
static ga_array_t *grouped(const plan_t *p, ga_array_t *a, int k, const char *const *groups,
                           int ngroups, cm_error_t *err)
{
    int axes[GA_MAX_DIMS], n = 0;
    int64_t shape[3];
    for (int g = 0; g < ngroups; g++) {
        shape[g] = 1;
        for (int i = 0; groups[g][i]; i++) {
            axes[n++] = index_of(p->in[k], groups[g][i]);
            shape[g] *= p->size[index_of(p->all, groups[g][i])];
        }
    }
    ga_array_t *v = ga_array_permute(a, axes, err);
    if (!v)
        return NULL;
    cm_error_t quiet = {0};
    ga_array_t *r = ga_array_reshape(v, ngroups, shape, &quiet);
    if (!r) { /* a layout that does not merge: a C-order copy first */
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(a->dtype));
        ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = v};
        ga_array_t *c = ga_map_eval(expr, NULL, 1, &arg, err);
        r = c ? ga_array_reshape(c, ngroups, shape, err) : NULL;
        ga_array_free(c);
    }
    ga_array_free(v);
    return r;
}

static ga_array_t *by_matmul(const plan_t *p, ga_array_t *const *ops, cm_error_t *err)
{
    char batch[LETTERS + 1] = "", left[LETTERS + 1] = "", right[LETTERS + 1] = "",
         summed[LETTERS + 1] = "";
    for (int g = 0; g < p->nall; g++) {
        char c = p->all[g], s[2] = {c, 0};
        int in0 = index_of(p->in[0], c) >= 0, in1 = index_of(p->in[1], c) >= 0;
        int out = g < p->nout;
        strcat(!out ? summed : in0 && in1 ? batch : in0 ? left : right, s);
    }
    const char *ga[3] = {batch, left, summed}, *gb[3] = {batch, summed, right};
    ga_array_t *a = grouped(p, ops[0], 0, ga, 3, err);
    ga_array_t *b = a ? grouped(p, ops[1], 1, gb, 3, err) : NULL;
    ga_array_t *c = b ? ga_blas_matmul(a, b, err) : NULL;
    ga_array_free(a);
    ga_array_free(b);
    if (!c)
        return NULL;
    /* (batch..., left..., right...), then the output's order */
    char order[LETTERS + 1];
    snprintf(order, sizeof order, "%s%s%s", batch, left, right);
    int64_t shape[LETTERS];
    int axes[LETTERS], n = (int)strlen(order);
    for (int i = 0; i < n; i++)
        shape[i] = p->size[index_of(p->all, order[i])];
    for (int i = 0; i < p->nout; i++)
        axes[i] = index_of(order, p->out[i]);
    ga_array_t *full = ga_array_reshape(c, n, shape, err);
    ga_array_free(c);
    ga_array_t *r = full ? ga_array_permute(full, axes, err) : NULL;
    ga_array_free(full);
    return r;
}

ga_array_t *ga_einsum(const char *subscripts, int nops, ga_array_t *const *ops, cm_error_t *err)
{
    for (int k = 0; k < nops && k < 2; k++)
        if (ga_array_check(ops[k], err) != 0)
            return NULL;
    if (!subscripts) {
        CM_ERROR(err, GA_E_VALUE, "no subscripts");
        return NULL;
    }
    plan_t p;
    if (parse(subscripts, nops, ops, &p, err) != 0)
        return NULL;
    if (nops == 2 && ops[0]->device != ops[1]->device) {
        CM_ERROR(err, GA_E_DEVICE, "the operands are on different devices: move one with "
                 "ga_to_device");
        return NULL;
    }
    return is_product(&p, ops) ? by_matmul(&p, ops, err) : generic(&p, ops, err);
}

ga_array_t *ga_api_einsum(const char *subscripts, int nargs, ga_array_t *const *args)
{
    cm_error_t err = {0};
    ga_array_t *r = ga_einsum(subscripts, nargs, args, &err);
    if (!r)
        ga_api_fail("ga_einsum", &err);
    return r;
}
