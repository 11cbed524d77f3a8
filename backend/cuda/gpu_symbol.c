/* gpu_symbol: the session's device variables. A __device__ / __constant__
 * variable lives in the module of the cell that defines it (its owner);
 * later cells' modules reach it through a pointer, `__gpuc_ref_NAME`,
 * which this registry points at the owner's storage, and points again when
 * a cell defines the name anew (gpu_compile.c writes the later cells' code
 * so that NAME means `(*__gpuc_ref_NAME)`). So each variable has one storage
 * for the session, as in one nvcc program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

typedef struct dsym {
    char name[128];
    char decl[256];
    int cell;
    int sim;                   /* addr is host memory of the simulator */
    unsigned long long addr;
    size_t size;
    unsigned char *init;       /* sim: its bytes when first defined at addr */
} dsym_t;

typedef struct dref {
    char name[128];
    int sim;
    unsigned long long where;
} dref_t;

static dsym_t *syms;
static int nsyms;
static dref_t *refs;
static int nrefs;

static dsym_t *find(const char *name)
{
    for (int i = 0; i < nsyms; i++)
        if (strcmp(syms[i].name, name) == 0)
            return &syms[i];
    return NULL;
}

/* Writes addr into the pointer at where. */
static void point(unsigned long long where, int sim, unsigned long long addr)
{
    if (sim) {
        memcpy((void *)(uintptr_t)where, &addr, sizeof addr);
        return;
    }
    const gpu_driver_t *d = gpu_driver_get(NULL);
    if (d)
        d->cuMemcpyHtoD((gpu_cudeviceptr_t)where, &addr, sizeof addr);
}

void gpu_symbol_define(const char *name, const char *decl, int cell, unsigned long long addr,
                       size_t size, int sim)
{
    dsym_t *s = find(name);
    if (!s) {
        dsym_t *grown = realloc(syms, (size_t)(nsyms + 1) * sizeof *grown);
        if (!grown)
            return;
        syms = grown;
        s = &syms[nsyms++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    if (sim && s->sim && s->addr == addr && s->init && s->size == size) {
        /* the same object again (a re-run of the same cell): a new
         * definition starts from its initial value, as on a GPU */
        memcpy((void *)(uintptr_t)addr, s->init, size);
    } else {
        free(s->init);
        s->init = sim ? malloc(size ? size : 1) : NULL;
        if (s->init)
            memcpy(s->init, (void *)(uintptr_t)addr, size);
    }
    snprintf(s->decl, sizeof s->decl, "%s", decl);
    s->cell = cell;
    s->sim = sim;
    s->addr = addr;
    s->size = size;
    for (int i = 0; i < nrefs; i++)
        if (strcmp(refs[i].name, name) == 0 && refs[i].sim == sim)
            point(refs[i].where, sim, addr);
}

void gpu_symbol_ref(const char *name, unsigned long long where, int sim)
{
    dref_t *grown = realloc(refs, (size_t)(nrefs + 1) * sizeof *grown);
    if (!grown)
        return;
    refs = grown;
    dref_t *r = &refs[nrefs++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->sim = sim;
    r->where = where;
    dsym_t *s = find(name);
    if (s && s->sim == sim)
        point(where, sim, s->addr);
}

int gpu_symbol_lookup(const char *name, void **addr, size_t *size)
{
    dsym_t *s = name ? find(name) : NULL;
    if (!s || s->sim != gpu_simulating())
        return -1;
    *addr = (void *)(uintptr_t)s->addr;
    *size = s->size;
    return 0;
}

void gpu_symbol_reset(void)
{
    for (int i = 0; i < nsyms; i++)
        free(syms[i].init);
    free(syms);
    free(refs);
    syms = NULL;
    refs = NULL;
    nsyms = nrefs = 0;
}
