/* sim_profile: %%profile's counts on the simulator (see sim.h).
 *
 * Bytes: the checked variant's access callbacks (sim_check.c) pass each
 * load and store here with the kind of region it touched. Operations:
 * trace-pc calls sim_profile_block at each basic block a thread enters;
 * the blocks' start addresses are counted in a hash, and at the end of
 * the launch each block's floating-point instructions are read from the
 * module's code (objdump -d, parsed once per module file) from that
 * address to the block's end (a jump, a return, the next block's call),
 * times the block's count. The simulator runs a profiled launch on one
 * worker (as every checked launch), so nothing here takes a lock. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "sim_abi.h"
#include "sim_check.h"
#include "sim_thread.h"

volatile int sim_profile_on;

static struct {
    sim_profile_record_t *v;
    int n, cap;
    sim_profile_record_t *cur; /* the running launch's, or NULL */
    /* the running launch's basic blocks: start address -> times entered */
    uintptr_t *pcs;
    unsigned long long *hits;
    size_t size, used;         /* slots (a power of two), filled */
} P;

/* ---- records ------------------------------------------------------------ */

static sim_profile_record_t *new_record(void)
{
    if (P.n == P.cap) {
        int cap = P.cap ? P.cap * 2 : 64;
        sim_profile_record_t *v = realloc(P.v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        P.v = v;
        P.cap = cap;
    }
    sim_profile_record_t *r = &P.v[P.n++];
    memset(r, 0, sizeof *r);
    return r;
}

void sim_profile_start(void)
{
    free(P.v);
    P.v = NULL;
    P.n = P.cap = 0;
    P.cur = NULL;
    sim_profile_on = 1;
}

int sim_profile_stop(sim_profile_record_t **out)
{
    sim_profile_on = 0;
    *out = P.v;
    int n = P.n;
    P.v = NULL;
    P.n = P.cap = 0;
    P.cur = NULL;
    return n;
}

void sim_profile_copy(const char *name, size_t read, size_t written, double start,
                      double seconds)
{
    sim_profile_record_t *r = sim_profile_on ? new_record() : NULL;
    if (!r)
        return;
    r->kind = SIM_PROF_COPY;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->start = start;
    r->seconds = seconds;
    r->load_global = read;
    r->store_global = written;
    r->counted = 1;
}

/* ---- counting ------------------------------------------------------------- */

/* Coalescing: the 32-byte sectors the n-th global access of a warp's
 * threads touches, counted once per (warp, n, direction, sector) — as a
 * GPU's load or store instruction for a warp moves whole sectors. A
 * block's threads run one after another here, so each thread counts its
 * accesses (seq) and the n-th of every thread of a warp is taken for one
 * instruction, which it is where the warp does not diverge. */
#define SECTOR 32
typedef struct sector {
    uint64_t sector, who;      /* who: warp, n and the direction */
    uint32_t gen;              /* the block it belongs to; another: an empty slot */
} sector_t;

static struct {
    uint32_t stamp, gen;       /* the block counted now */
    uint32_t seq[1024];        /* (threads of the block) its accesses so far */
    sector_t *v;
    size_t size, used;
} C;

static int grow_sectors(void)
{
    size_t size = C.size ? C.size * 2 : 1u << 14;
    sector_t *v = calloc(size, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < C.size; i++) {
        if (C.v[i].gen != C.gen)
            continue;
        size_t j = (size_t)((C.v[i].sector * 31 + C.v[i].who) * 0x9e3779b97f4a7c15ull >> 17) & (size - 1);
        while (v[j].gen == C.gen)
            j = (j + 1) & (size - 1);
        v[j] = C.v[i];
    }
    free(C.v);
    C.v = v;
    C.size = size;
    return 0;
}

static void count_sectors(sim_profile_record_t *r, uintptr_t addr, unsigned long size, int write)
{
    if (sim_now.stamp != C.stamp || !C.gen) {
        C.stamp = sim_now.stamp;
        C.gen++;
        C.used = 0;
        memset(C.seq, 0, sizeof C.seq);
    }
    uint32_t t = sim_now.thread < 1024 ? sim_now.thread : 1023;
    uint64_t who = (uint64_t)(t / 32) << 40 | (uint64_t)C.seq[t]++ << 1 | (uint64_t)(write != 0);
    for (uint64_t s = addr / SECTOR; s <= (addr + size - 1) / SECTOR; s++) {
        if ((C.used + 1) * 2 >= C.size && grow_sectors())
            return;
        size_t j = (size_t)((s * 31 + who) * 0x9e3779b97f4a7c15ull >> 17) & (C.size - 1);
        while (C.v[j].gen == C.gen && !(C.v[j].sector == s && C.v[j].who == who))
            j = (j + 1) & (C.size - 1);
        if (C.v[j].gen != C.gen) {
            C.v[j] = (sector_t){s, who, C.gen};
            C.used++;
            r->sectors++;
        }
    }
}

void sim_profile_access(int kind, uintptr_t addr, unsigned long size, int flags)
{
    sim_profile_record_t *r = P.cur;
    if (!r || kind < 0 || kind == SIM_MEM_PINNED || !size)
        return; /* a thread's stack (registers on a GPU), host memory */
    int write = flags & SIM_ACCESS_WRITE;
    if (kind == SIM_MEM_SHARED) {
        *(write ? &r->store_shared : &r->load_shared) += size;
    } else {
        *(write ? &r->store_global : &r->load_global) += size;
        count_sectors(r, addr, size, write);
    }
    if (flags & SIM_ACCESS_ATOMIC)
        r->atomics++;
}

static size_t slot_of(uintptr_t pc, size_t size)
{
    return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (size - 1);
}

static int grow(void)
{
    size_t size = P.size ? P.size * 2 : 4096;
    uintptr_t *pcs = calloc(size, sizeof *pcs);
    unsigned long long *hits = calloc(size, sizeof *hits);
    if (!pcs || !hits) {
        free(pcs);
        free(hits);
        return -1;
    }
    for (size_t i = 0; i < P.size; i++) {
        if (!P.pcs[i])
            continue;
        size_t j = slot_of(P.pcs[i], size);
        while (pcs[j])
            j = (j + 1) & (size - 1);
        pcs[j] = P.pcs[i];
        hits[j] = P.hits[i];
    }
    free(P.pcs);
    free(P.hits);
    P.pcs = pcs;
    P.hits = hits;
    P.size = size;
    return 0;
}

void sim_profile_block(const void *pc)
{
    if (!P.cur)
        return;
    if (P.used * 2 >= P.size && grow())
        return;
    uintptr_t a = (uintptr_t)pc;
    size_t j = slot_of(a, P.size);
    while (P.pcs[j] && P.pcs[j] != a)
        j = (j + 1) & (P.size - 1);
    if (!P.pcs[j]) {
        P.pcs[j] = a;
        P.hits[j] = 0;
        P.used++;
    }
    P.hits[j]++;
}

/* ---- a module's code ------------------------------------------------------ */

/* What an instruction is for counting. */
enum { I_OTHER = 0, I_END, I_NEXT, I_FP };

typedef struct insn {
    uintptr_t off;             /* in the file's image */
    unsigned char cls;         /* I_* */
    unsigned char prec, op, lanes;
} insn_t;

typedef struct code {
    char *path;
    insn_t *v;
    size_t n;
} code_t;

static code_t *codes;
static size_t ncodes;

/* "vfmadd231ss" -> FMA, F32, 1 lane; "addpd %ymm1" -> ADD, F64, 4 lanes. 0 when
 * the mnemonic is no floating-point arithmetic we count. */
static int fp_of(const char *m, const char *operands, insn_t *in)
{
    if (m[0] == 'v')
        m++;
    size_t len = strlen(m);
    if (len < 4)
        return 0;
    const char *suffix = m + len - 2;
    int scalar = suffix[0] == 's', packed = suffix[0] == 'p';
    if (!(scalar || packed) || (suffix[1] != 's' && suffix[1] != 'd'))
        return 0;
    in->prec = suffix[1] == 's' ? SIM_PREC_F32 : SIM_PREC_F64;
    size_t stem = len - 2;
    if ((stem == 3 && (!strncmp(m, "add", 3) || !strncmp(m, "sub", 3))))
        in->op = SIM_OP_ADD;
    else if (stem == 3 && !strncmp(m, "mul", 3))
        in->op = SIM_OP_MUL;
    else if ((stem == 3 && !strncmp(m, "div", 3)) || (stem == 4 && !strncmp(m, "sqrt", 4)))
        in->op = SIM_OP_SPECIAL;
    else if (!strncmp(m, "fmadd", 5) || !strncmp(m, "fmsub", 5) || !strncmp(m, "fnmadd", 6) ||
             !strncmp(m, "fnmsub", 6))
        in->op = SIM_OP_FMA;
    else
        return 0;
    int wide = operands && strstr(operands, "%ymm") ? 2 : operands && strstr(operands, "%zmm") ? 4 : 1;
    in->lanes = (unsigned char)(scalar ? 1 : (in->prec == SIM_PREC_F32 ? 4 : 2) * wide);
    in->cls = I_FP;
    return 1;
}

/* One line of objdump -d --no-show-raw-insn: "  11fe:\tmulss  -0x4(%rbp),%xmm0". */
static int parse_line(char *line, insn_t *in)
{
    char *colon = strchr(line, ':');
    if (!colon || colon[1] != '\t')
        return 0;
    char *end;
    unsigned long long off = strtoull(line, &end, 16);
    if (end != colon)
        return 0;
    memset(in, 0, sizeof *in);
    in->off = (uintptr_t)off;
    char *m = colon + 2;
    while (!strncmp(m, "bnd ", 4) || !strncmp(m, "notrack ", 8) || !strncmp(m, "rep ", 4) ||
           !strncmp(m, "repz ", 5))
        m = strchr(m, ' ') + 1;
    char mnem[32];
    size_t k = 0;
    while (m[k] && m[k] != ' ' && m[k] != '\n' && k + 1 < sizeof mnem) {
        mnem[k] = m[k];
        k++;
    }
    mnem[k] = 0;
    const char *operands = m + k;
    if (mnem[0] == 'j' || !strncmp(mnem, "ret", 3) || !strcmp(mnem, "ud2") || !strcmp(mnem, "hlt"))
        in->cls = I_END;
    else if (!strncmp(mnem, "call", 4) && strstr(operands, "<__sanitizer_cov_trace_pc"))
        in->cls = I_NEXT;
    else if (!strncmp(mnem, "call", 4) && (strstr(operands, "<fmaf@") || strstr(operands, "<fma@"))) {
        in->cls = I_FP;
        in->prec = strstr(operands, "<fmaf@") ? SIM_PREC_F32 : SIM_PREC_F64;
        in->op = SIM_OP_FMA;
        in->lanes = 1;
    } else if (!strncmp(mnem, "call", 4) && (strstr(operands, "<sqrtf@") || strstr(operands, "<sqrt@"))) {
        in->cls = I_FP;
        in->prec = strstr(operands, "<sqrtf@") ? SIM_PREC_F32 : SIM_PREC_F64;
        in->op = SIM_OP_SPECIAL;
        in->lanes = 1;
    } else {
        fp_of(mnem, operands, in);
    }
    return 1;
}

static int by_off(const void *a, const void *b)
{
    uintptr_t x = ((const insn_t *)a)->off, y = ((const insn_t *)b)->off;
    return x < y ? -1 : x > y;
}

/* The instructions of the module file at path, read once; NULL when
 * objdump cannot read it. */
static code_t *code_of(const char *path)
{
    for (size_t i = 0; i < ncodes; i++)
        if (!strcmp(codes[i].path, path))
            return codes[i].v ? &codes[i] : NULL;
    code_t *grown = realloc(codes, (ncodes + 1) * sizeof *codes);
    if (!grown)
        return NULL;
    codes = grown;
    code_t *c = &codes[ncodes++];
    memset(c, 0, sizeof *c);
    c->path = strdup(path);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn '%s' 2>/dev/null", path);
    if (strchr(path, '\''))
        return NULL;
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    char line[512];
    size_t cap = 0;
    insn_t in;
    while (fgets(line, sizeof line, f)) {
        if (!parse_line(line, &in))
            continue;
        if (c->n == cap) {
            cap = cap ? cap * 2 : 4096;
            insn_t *v = realloc(c->v, cap * sizeof *v);
            if (!v)
                break;
            c->v = v;
        }
        c->v[c->n++] = in;
    }
    pclose(f); /* its status may be lost to the executor's SIGCHLD handling: the lines tell */
    if (!c->n) {
        free(c->v);
        c->v = NULL;
        c->n = 0;
        return NULL;
    }
    if (c->n)
        qsort(c->v, c->n, sizeof *c->v, by_off);
    return c;
}

/* Adds the operations of the block starting at pc, run hits times. 0 / -1
 * (the code cannot be read). */
static int count_block(sim_profile_record_t *r, uintptr_t pc, unsigned long long hits)
{
    Dl_info info;
    if (!dladdr((void *)pc, &info) || !info.dli_fname || !info.dli_fbase)
        return -1;
    code_t *c = code_of(info.dli_fname);
    if (!c)
        return -1;
    uintptr_t off = pc - (uintptr_t)info.dli_fbase;
    insn_t key = {.off = off};
    size_t lo = 0, hi = c->n;
    while (lo < hi) { /* the first instruction at or after off */
        size_t mid = (lo + hi) / 2;
        if (by_off(&c->v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < c->n && i < lo + 100000; i++) {
        const insn_t *in = &c->v[i];
        if (in->cls == I_END || in->cls == I_NEXT)
            break;
        if (in->cls == I_FP)
            r->ops[in->prec][in->op] += hits * in->lanes;
    }
    return 0;
}

/* ---- a launch ------------------------------------------------------------- */

void sim_profile_launch_begin(const sim_kernel_t *k, const unsigned grid[3],
                              const unsigned block[3], size_t shared_dynamic, int counted)
{
    sim_profile_record_t *r = new_record();
    P.cur = NULL;
    if (!r)
        return;
    r->kind = SIM_PROF_KERNEL;
    snprintf(r->name, sizeof r->name, "%s", k->name ? k->name : "kernel");
    memcpy(r->grid, grid, sizeof r->grid);
    memcpy(r->block, block, sizeof r->block);
    r->shared_static = k->shared_bytes;
    r->shared_dynamic = shared_dynamic;
    r->counted = counted;
    if (P.size)
        memset(P.pcs, 0, P.size * sizeof *P.pcs);
    C.gen++; /* a new launch: no sector of the last one's blocks is this one's */
    C.used = 0;
    C.stamp = 0;
    P.used = 0;
    if (counted)
        P.cur = r;
}

void sim_profile_launch_end(double start, double seconds)
{
    sim_profile_record_t *r = P.n ? &P.v[P.n - 1] : NULL;
    if (!r || r->kind != SIM_PROF_KERNEL)
        return;
    r->start = start;
    r->seconds = seconds;
    r->ops_counted = r->counted;
    for (size_t i = 0; r->counted && i < P.size; i++)
        if (P.pcs[i] && count_block(r, P.pcs[i], P.hits[i])) {
            r->ops_counted = 0;
            memset(r->ops, 0, sizeof r->ops);
            break;
        }
    P.cur = NULL;
}
