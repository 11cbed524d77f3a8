/* %sim: the CUDA simulator's settings (docs/simulator.md). */
#include "rt_magic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "gpu.h"

#define MAX_THREADS 256        /* backend/sim's SIM_POOL_MAX */

static void show(void)
{
    bk_device_info_t d; /* the simulated device, as the backend floor describes it */
    bk_device_info(bk_device(BK_SIM, 0), &d, NULL);
    long long seed = gpu_sim_seed();
    int nsim = bk_sim_device_count();
    printf("%s: %s\n", d.name,
           bk_backend(bk_kernel_device()) == BK_SIM ? "kernels run here"
                                                    : "not in use (kernels run on the GPU; "
                                                      "%device cpu to use it)");
    if (nsim > 1)
        printf("devices: %d (sim0..sim%d; GPUC_SIM_DEVICES or %%sim --devices N)\n", nsim,
               nsim - 1);
    else
        printf("devices: 1 (sim0; GPUC_SIM_DEVICES or %%sim --devices N for more)\n");
    if (seed < 0)
        printf("order: warps and blocks in index order (fixed)\n");
    else
        printf("order: warps and blocks shuffled with seed %lld\n", seed);
    int memcheck, racecheck, is_default;
    gpu_sim_checks(&memcheck, &racecheck);
    int threads = gpu_sim_threads(&is_default);
    if (threads == 1)
        printf("workers: 1 (blocks run one after another on the executor's thread)");
    else
        printf("workers: %d threads (blocks run on %d CPU cores at once%s)", threads, threads,
               memcheck || racecheck ? "; one while a check is on" : "");
    printf("%s\n", is_default ? ", the default" : "");
    printf("memcheck: %s\n",
           memcheck ? "on, the default (out of bounds, use after cudaFree, host pointers, "
                      "misaligned accesses stop the kernel with a report; the timing magics "
                      "time without it; %sim --no-memcheck for full speed)"
                    : "off (%sim --memcheck to turn it on; an access that reaches the "
                      "inaccessible memory around device allocations is still an illegal "
                      "address error)");
    printf("racecheck: %s\n", racecheck ? "on (data races in shared and global memory are "
                                          "reported at the end of the cell)"
                                        : "off (%sim --racecheck to turn it on)");
}

/* --memcheck, --no-memcheck, --racecheck, --no-racecheck: 1 when arg is one (and done). */
static int check_option(const char *arg)
{
    static const struct {
        const char *name;
        int which, on;         /* which: 0 memcheck, 1 racecheck */
    } options[] = {{"--memcheck", 0, 1}, {"--no-memcheck", 0, 0},
                   {"--racecheck", 1, 1}, {"--no-racecheck", 1, 0}};
    for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
        if (strcmp(arg, options[i].name) != 0)
            continue;
        int on[2];
        gpu_sim_checks(&on[0], &on[1]);
        on[options[i].which] = options[i].on;
        gpu_sim_set_checks(on[0], on[1]);
        return 1;
    }
    return 0;
}

int rt_magic_sim(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    (void)s;
    cm_names_t a = {0};
    rt_magic_args(code, m, &a);
    int rc = 0;
    for (size_t i = 0; i < a.n && rc == 0; i++) {
        const char *arg = a.v[i];
        if (strcmp(arg, "--seed") == 0) {
            const char *v = i + 1 < a.n ? a.v[++i] : NULL;
            char *end = NULL;
            long long seed = v && strcmp(v, "off") != 0 ? strtoll(v, &end, 10) : -1;
            if (!v || (end && (*end || end == v || seed < 0)))
                rc = rt_error_set(err, "UsageError", cell_no, m->line,
                                  "%%sim --seed: give a number >= 0, or off");
            else
                gpu_sim_set_seed(seed);
        } else if (strcmp(arg, "--threads") == 0) {
            const char *v = i + 1 < a.n ? a.v[++i] : NULL;
            char *end = NULL;
            long n = v && strcmp(v, "auto") != 0 ? strtol(v, &end, 10) : 0;
            if (!v || (end && (*end || end == v || n < 1 || n > MAX_THREADS)))
                rc = rt_error_set(err, "UsageError", cell_no, m->line,
                                  "%%sim --threads: give a number from 1 to %d, or auto",
                                  MAX_THREADS);
            else
                gpu_sim_set_threads((int)n);
        } else if (strcmp(arg, "--devices") == 0) {
            const char *v = i + 1 < a.n ? a.v[++i] : NULL;
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            cm_error_t e = {0};
            if (!v || *end || end == v || n < 1 || n > BK_MAX_ORDINALS)
                rc = rt_error_set(err, "UsageError", cell_no, m->line,
                                  "%%sim --devices: give a number from 1 to %d", BK_MAX_ORDINALS);
            else if (bk_sim_set_device_count((int)n, &e) != 0)
                rc = rt_error_set(err, "DeviceError", cell_no, m->line, "%%sim --devices: %s",
                                  e.text);
        } else if (check_option(arg)) {
            continue;
        } else {
            rc = rt_error_set(err, "UsageError", cell_no, m->line,
                              "%%sim: unknown option '%s': %%sim [--seed N | --seed off] "
                              "[--threads N | --threads auto] [--memcheck | --no-memcheck] "
                              "[--racecheck | --no-racecheck] [--devices N]", arg);
        }
    }
    cm_names_free(&a);
    if (rc == 0)
        show();
    return rc;
}
