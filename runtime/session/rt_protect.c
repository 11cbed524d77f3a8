/* rt_protect: the protected run boundary (see rt_protect.h). */
#include "rt_protect.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt_tcc.h"

#define ALT_STACK_SIZE (256 * 1024)
/* An interrupt waits for the cell to be in its own code (a safe point: no
 * libc lock held, no half-updated malloc or stdio state), retrying every
 * RETRY_NS. A cell blocked in a system call that gpuc does not wrap as a
 * wait (pthread_join, select) is stopped there after PATIENCE_NS; one
 * running inside a library (a long BLAS call) after LAST_NS only: jumping
 * out of library code may leave its locks held (a loop of malloc and
 * printf, interrupted in the allocator under AddressSanitizer, hung the
 * next cell), and a loop that comes back to the cell's code meets a safe
 * point long before. */
#define RETRY_NS (2 * 1000 * 1000)
#define PATIENCE_NS (300 * 1000 * 1000LL)
#define LAST_NS (3 * 1000 * 1000 * 1000LL)

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static sigjmp_buf jump_env;
static volatile sig_atomic_t running;      /* a cell runs under rt_protect_run */
static volatile sig_atomic_t pending_int;  /* SIGINT while no cell ran */
static volatile sig_atomic_t in_child;     /* we are a child forked by a cell */
static rt_fault_t last_fault;
static int initialized;
static int fork_fd = -1;
static uintptr_t stack_lo, stack_hi;       /* the cell thread's stack */
static volatile sig_atomic_t int_wanted;   /* an interrupt waits for a safe point */
static struct timespec int_since;          /* when it was asked for */
static timer_t retry_timer;                /* re-sends retry_signal to the cell thread */
static int retry_signal;
static int have_timer;
static pthread_t cell_thread;              /* the thread that runs cells */
static volatile sig_atomic_t waiting;      /* depth of rt_protect_wait_begin */
static volatile sig_atomic_t holding;      /* depth of rt_protect_hold */

static int readable(uintptr_t a)
{
    return a >= stack_lo && a + sizeof(void *) <= stack_hi && (a % sizeof(void *)) == 0;
}

/* Records where the fault happened, reading only the cell thread's stack. */
static void record(int sig, siginfo_t *si, void *ucv)
{
    rt_fault_t *f = &last_fault;
    memset(f, 0, sizeof *f);
    f->signo = sig;
    f->code = si ? si->si_code : 0;
    f->addr = si ? si->si_addr : NULL;
#if defined(__x86_64__) && defined(REG_RIP)
    ucontext_t *uc = ucv;
    if (!uc)
        return;
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    uintptr_t bp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    f->ip = (void *)ip;
    uintptr_t fa = (uintptr_t)f->addr;
    if (sig == SIGSEGV && fa + 65536 >= sp && fa <= sp + 65536) {
        f->stack_overflow = 1;
        return; /* the stack near sp may be unmapped: read nothing */
    }
    if (readable(sp))
        f->frames[f->nframes++] = *(void **)sp; /* a leaf function's return address */
    while (f->nframes < RT_PROTECT_FRAMES && readable(bp) && readable(bp + 8) && bp >= sp) {
        f->frames[f->nframes++] = *(void **)(bp + 8);
        uintptr_t next = *(uintptr_t *)bp;
        if (next <= bp)
            break;
        bp = next;
    }
#else
    (void)ucv;
#endif
}

static long long elapsed_ns(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000000000LL + (now.tv_nsec - since->tv_nsec);
}

/* Whether the interrupted thread was blocked in a system call: the
 * kernel put its instruction pointer back on the `syscall` instruction
 * (SA_RESTART), or just past it with -EINTR in rax. Reads only the
 * instruction that was being run. Elsewhere: 1 (the old rule). */
static int in_system_call(const void *ucv)
{
#if defined(__x86_64__) && defined(REG_RIP) && defined(REG_RAX)
    const greg_t *g = ((const ucontext_t *)ucv)->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    if (!ip)
        return 0;
    if (g[REG_RAX] == -EINTR)
        return ip[-2] == 0x0f && ip[-1] == 0x05;
    return ip[0] == 0x0f && ip[1] == 0x05;
#else
    (void)ucv;
    return 1;
#endif
}

/* For SIGINT and the retry signal: non-zero when the jump may happen now. */
static int interrupt_now(int sig, void *ucv)
{
    if (sig == SIGINT && !int_wanted) {
        int_wanted = 1;
        clock_gettime(CLOCK_MONOTONIC, &int_since);
    }
    if (!int_wanted)
        return 0; /* a retry after the cell ended */
    const void *ip = NULL;
#if defined(__x86_64__) && defined(REG_RIP)
    ip = (const void *)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#endif
    /* in a wait, the wait's end takes the interrupt; the retries only
     * make sure a call that started just after it returns early too */
    long long waited = have_timer ? elapsed_ns(&int_since) : 0;
    if (!waiting && !holding &&
        (!have_timer || rt_tcc_owns_code(ip) || waited >= LAST_NS ||
         (waited >= PATIENCE_NS && in_system_call(ucv)))) {
        int_wanted = 0;
        return 1;
    }
    struct itimerspec again = {.it_value = {0, RETRY_NS}};
    if (have_timer)
        timer_settime(retry_timer, 0, &again, NULL);
    return 0;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int interrupt = sig == SIGINT || (retry_signal && sig == retry_signal);
    if (!running) {
        if (sig == SIGINT) {
            pending_int = 1;
            return;
        }
        if (interrupt)
            return;
        signal(sig, SIG_DFL); /* a fault in gpuc itself: die as it would */
        raise(sig);
        return;
    }
    if (interrupt && !interrupt_now(sig, uc))
        return;
    if (interrupt)
        sig = SIGINT;
    record(sig, si, uc);
    running = 0;
    siglongjmp(jump_env, 1);
}

static void stack_bounds(void)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        stack_lo = (uintptr_t)addr;
        stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

int rt_protect_init(cm_error_t *err)
{
    if (initialized)
        return 0;
    stack_t ss = {0};
    ss.ss_sp = malloc(ALT_STACK_SIZE);
    ss.ss_size = ALT_STACK_SIZE;
    if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0) {
        free(ss.ss_sp);
        CM_ERROR(err, 1, "cannot set up the alternate signal stack");
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++) {
        if (sigaction(fault_signals[i], &sa, NULL) != 0) {
            CM_ERROR(err, 1, "cannot install the handler for %s",
                     rt_protect_signal_name(fault_signals[i]));
            return -1;
        }
    }
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    if (sigaction(SIGINT, &sa, NULL) != 0) {
        CM_ERROR(err, 1, "cannot install the SIGINT handler");
        return -1;
    }
    /* the retry timer signals this thread, the one that runs cells */
    retry_signal = SIGRTMIN + 3;
    if (sigaction(retry_signal, &sa, NULL) == 0) {
        struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = retry_signal};
        ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
        have_timer = timer_create(CLOCK_MONOTONIC, &ev, &retry_timer) == 0;
    }
    stack_bounds();
    cell_thread = pthread_self();
    initialized = 1;
    return 0;
}

static void child_after_fork(void)
{
    in_child = 1;
    if (fork_fd >= 0) {
        close(fork_fd);
        fork_fd = -1;
    }
}

void rt_protect_on_fork(int fd)
{
    static int registered;
    fork_fd = fd;
    if (!registered) {
        pthread_atfork(NULL, NULL, child_after_fork);
        registered = 1;
    }
}

/* errno as the cells left it: the executor's own calls between two runs
 * (the link, compiles, header checks) change errno, which in one C
 * program only the program changes */
static int cells_errno;

int rt_protect_run(void (*fn)(void *), void *arg, rt_fault_t *fault)
{
    pending_int = 0;
    int_wanted = 0;
    waiting = 0;
    holding = 0;
    int jumped = sigsetjmp(jump_env, 1);
    if (jumped == 2) {
        if (in_child)
            _exit(1);
        return RT_PROTECT_RAISED;
    }
    if (jumped == 3) {
        cells_errno = errno;
        if (fault)
            *fault = last_fault;
        return RT_PROTECT_EXITED;
    }
    if (jumped == 0) {
        running = 1;
        errno = cells_errno;
        fn(arg);
        cells_errno = errno;
        running = 0;
        if (in_child) {
            fflush(NULL);
            _exit(0);
        }
        if (int_wanted) {
            /* interrupted in a library call that returned early (sleep
             * gives EINTR) and the cell ended before a safe point came:
             * it was still interrupted, and says so */
            int_wanted = 0;
            memset(&last_fault, 0, sizeof last_fault);
            last_fault.signo = SIGINT;
            if (fault)
                *fault = last_fault;
            return SIGINT;
        }
        return 0;
    }
    /* back from the handler: the mask saved by sigsetjmp is restored */
    cells_errno = errno;
    if (in_child)
        _exit(128 + last_fault.signo);
    if (fault)
        *fault = last_fault;
    return last_fault.signo;
}

/* Leaves the running cell (how: 1 interrupted, 2 raised, 3 exited), from
 * the cell thread outside any signal handler (the jump restores the mask
 * saved at the boundary). */
static _Noreturn void leave_cell(int how)
{
    running = 0;
    int_wanted = 0;
    waiting = 0;
    holding = 0;
    siglongjmp(jump_env, how);
}

/* Leaves it as interrupted in call, returning to ret. */
static _Noreturn void stop_cell(const char *call, void *ret)
{
    memset(&last_fault, 0, sizeof last_fault);
    last_fault.signo = SIGINT;
    last_fault.ip = ret;
    last_fault.call = call;
    leave_cell(1);
}

/* Waits and holds count on the cell thread only: a thread a cell started
 * runs the same code (its sleep is rt_libc's too) but is never jumped out
 * of, and must not defer or take the cell's interrupt. */
static int on_cell_thread(void)
{
    return initialized && pthread_equal(pthread_self(), cell_thread);
}

void rt_protect_wait_begin(void)
{
    if (on_cell_thread())
        waiting++;
}

void rt_protect_wait_end(const char *call, void *ret)
{
    if (!on_cell_thread())
        return;
    if (waiting > 0)
        waiting--;
    if (!waiting && running && int_wanted)
        stop_cell(call, ret);
}

void rt_protect_checkpoint(const char *call, void *ret)
{
    if (on_cell_thread() && !waiting && !holding && running && int_wanted)
        stop_cell(call, ret);
}

int rt_protect_interrupted(void)
{
    return on_cell_thread() && running && int_wanted;
}

void rt_protect_hold(void)
{
    if (on_cell_thread())
        holding++;
}

void rt_protect_release(void)
{
    if (on_cell_thread() && holding > 0)
        holding--;
}

static char raised_ename[64];
static char raised_evalue[4096];

void rt_protect_raise(const char *ename, const char *evalue)
{
    snprintf(raised_ename, sizeof raised_ename, "%s", ename);
    snprintf(raised_evalue, sizeof raised_evalue, "%s", evalue);
    leave_cell(2);
}

void rt_protect_exit(int status, void *ret)
{
    if (in_child || !running || !on_cell_thread()) {
        /* a forked child, code outside a cell, or a thread a cell started
         * ends the process, as exit() does */
        fflush(NULL);
        _exit(status);
    }
    memset(&last_fault, 0, sizeof last_fault);
    last_fault.ip = ret;
    last_fault.call = "exit";
    last_fault.exit_status = status;
    leave_cell(3);
}

void rt_protect_raised(const char **ename, const char **evalue)
{
    *ename = raised_ename;
    *evalue = raised_evalue;
}

int rt_protect_take_pending_interrupt(void)
{
    int p = pending_int;
    pending_int = 0;
    return p;
}

const char *rt_protect_signal_name(int signo)
{
    switch (signo) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGINT: return "SIGINT";
    default: return "signal";
    }
}
