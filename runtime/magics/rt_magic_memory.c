/* %memory: device memory — what arrays use, what the pool caches, what is
 * free — and the live arrays by the variable that holds them; %memory
 * free gives the cache back, %memory limit SIZE caps the pool. */
#include "rt_magic.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bk.h"
#include "cm_limits.h"
#include "ga_array.h"
#include "rt_arrays.h"
#include "rt_limits.h"

/* Devices %memory reports: the CPU, and each other device with a pool in use. */
static int device_in_use(bk_device_t device)
{
    bk_pool_stats_t st;
    bk_pool_stats(device, &st);
    return st.in_use || st.cached || st.limit || device == bk_default_device();
}

static void print_devices(void)
{
    printf("%-8s %14s %14s %14s %14s\n", "device", "arrays", "pool cache", "free", "total");
    bk_device_t list[2 * BK_MAX_ORDINALS + 1];
    int n = bk_devices(list, (int)(sizeof list / sizeof *list));
    for (int i = 0; i < n && i < (int)(sizeof list / sizeof *list); i++) {
        bk_device_t d = list[i];
        if (!device_in_use(d))
            continue;
        bk_pool_stats_t st;
        bk_pool_stats(d, &st);
        char dev[16], used[32], cached[32], avail[32] = "?", total[32] = "?";
        ga_device_text(d, dev, sizeof dev);
        ga_bytes_text(st.in_use, used, sizeof used);
        ga_bytes_text(st.cached, cached, sizeof cached);
        size_t fb, tb;
        if (bk_mem_info(d, &fb, &tb, NULL) == 0) {
            ga_bytes_text(fb, avail, sizeof avail);
            ga_bytes_text(tb, total, sizeof total);
        }
        printf("%-8s %14s %14s %14s %14s", dev, used, cached, avail, total);
        if (st.limit) {
            char lim[32];
            ga_bytes_text(st.limit, lim, sizeof lim);
            printf("  (pool limit %s)", lim);
        }
        printf("\n");
    }
}

typedef struct listing {
    int any;
} listing_t;

static void print_holder(void *ctx, const char *name, long index, const ga_array_t *a)
{
    listing_t *l = ctx;
    char what[256], label[160];
    if (!l->any)
        printf("\nLive arrays, by variable:\n");
    l->any = 1;
    ((ga_array_t *)a)->marked = 1; /* listed (reset by the next sweep) */
    if (index >= 0)
        snprintf(label, sizeof label, "%s[%ld]", name, index);
    else
        snprintf(label, sizeof label, "%s", name);
    ga_array_describe(a, what, sizeof what);
    printf("  %-20s %s (cell %d)\n", label, what, a->cell);
}

static void print_arrays(rt_session_t *s)
{
    for (ga_array_t *a = ga_array_first(); a; a = a->next)
        a->marked = 0;
    listing_t l = {0};
    rt_arrays_holders(s, print_holder, &l);
    int other = 0;
    for (ga_array_t *a = ga_array_first(); a; a = a->next) {
        if (a->marked)
            continue;
        char what[256];
        ga_array_describe(a, what, sizeof what);
        if (!other++)
            printf("\nOther live arrays (kept with ga_keep, or made by this cell):\n");
        printf("  %-20s %s (cell %d)\n", a->kept ? "(kept)" : "(this cell)", what, a->cell);
    }
    if (!l.any && !other)
        printf("\nNo live arrays.\n");
}

int rt_magic_memory(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    cm_names_t args = {0};
    rt_magic_args(code, m, &args);
    int rc = 0;
    size_t bytes = 0;
    if (args.n == 0) {
        print_devices();
        print_arrays(s);
    } else if (strcmp(args.v[0], "free") == 0 && args.n == 1) {
        size_t given = 0;
        bk_device_t list[2 * BK_MAX_ORDINALS + 1];
        int n = bk_devices(list, (int)(sizeof list / sizeof *list));
        for (int i = 0; i < n && i < (int)(sizeof list / sizeof *list); i++)
            given += bk_pool_release(list[i]);
        char b[32];
        ga_bytes_text(given, b, sizeof b);
        printf("Gave %s of cached blocks back.\n", b);
    } else if (strcmp(args.v[0], "limit") == 0 && args.n == 2 && cm_size_parse(args.v[1], &bytes) == 0) {
        size_t ceiling = rt_limits()->gpu_memory; /* the operator's: cells stay under it */
        if (ceiling && (!bytes || bytes > ceiling)) {
            char c[32];
            ga_bytes_text(ceiling, c, sizeof c);
            cm_names_free(&args);
            return rt_error_set(err, "LimitError", cell_no, m->line,
                                "%%memory limit: this kernel's pools are limited to %s by its "
                                "operator (%s); a lower limit can be set, not a higher one",
                                c, CM_LIMIT_GPU_MEMORY);
        }
        int d = bk_default_device();
        bk_pool_set_limit(d, bytes);
        char dev[16], b[32];
        ga_device_text(d, dev, sizeof dev);
        ga_bytes_text(bytes, b, sizeof b);
        if (bytes)
            printf("The %s pool holds at most %s (arrays and cache).\n", dev, b);
        else
            printf("The %s pool has no limit.\n", dev);
    } else {
        rc = rt_error_set(err, "UsageError", cell_no, m->line,
                          "%%memory: usage: %%memory | %%memory free | %%memory limit SIZE "
                          "(8GB, 512MiB, none)");
    }
    cm_names_free(&args);
    return rc;
}
