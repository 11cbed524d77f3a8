/* sim_pool: the worker threads that run blocks on several cores (see
 * sim_pool.h).
 *
 * Each worker waits on a word of its own (a futex): the launch bumps the
 * words of the workers it uses, and they count down one shared word when
 * done, which the launching thread waits on. No lock is taken on either
 * side, so that an interrupt may jump out of the wait (rt_protect) without
 * leaving a mutex held. */
#include "sim_pool.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ALT_STACK_BYTES (64 * 1024)
#define STOP_SIGNAL (SIGRTMIN + 4) /* rt_protect's retry signal is SIGRTMIN + 3 */
#define STOP_GRACE_WAITS 4         /* of 5 ms before a stop is signalled */

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NFAULT (int)(sizeof fault_signals / sizeof fault_signals[0])

typedef struct slot {
    pthread_t tid;
    int index;
    atomic_int go;             /* bumped for each run the worker takes part in */
    volatile sig_atomic_t armed;       /* inside its share: a fault or a stop leaves it */
    volatile sig_atomic_t holding;     /* sim_pool_hold depth */
    volatile sig_atomic_t stop_wanted; /* a stop came while holding */
    sigjmp_buf env;
    void *alt_stack;
} slot_t;

static struct {
    pid_t pid;                 /* the process whose threads these are */
    int started;
    slot_t *slots[SIM_POOL_MAX];
    atomic_int busy;           /* workers still in the current run */
    atomic_int quit;
    void (*share)(int);
    sim_pool_signal_fn on_signal;
    struct sigaction before[NFAULT]; /* the handlers ours replaced */
    int exit_registered;
} P;

static __thread slot_t *me;    /* the calling worker's slot (the caller's inside
                                  sim_pool_call); NULL elsewhere */
static slot_t caller;          /* the calling thread's, for sim_pool_call */

/* A system call made here rather than through libc's syscall(): a signal
 * it lets in on the executor's thread (an interrupt in the wait, a fault
 * raised again) is then seen at an address of no named function, which
 * the fault report leaves out, and not as "in syscall()". */
static long system_call(long number, long a, long b, long c, long d)
{
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
#else
    return syscall(number, a, b, c, d);
#endif
}

static void futex_wait(atomic_int *word, int value, long ns)
{
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    system_call(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, value, ns ? (long)&t : 0);
}

static void futex_wake(atomic_int *word)
{
    system_call(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, INT_MAX, 0);
}

void sim_pool_raise(int sig, const siginfo_t *info)
{
    siginfo_t copy = *info;
    system_call(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), sig, (long)&copy);
}

/* ---- signals ------------------------------------------------------------ */

static void leave_share(int how)
{
    me->armed = 0;
    siglongjmp(me->env, how);
}

static void on_stop(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    if (!me || !me->armed)
        return;
    if (me->holding) {
        me->stop_wanted = 1;
        return;
    }
    P.on_signal(0, si, uc);
    leave_share(2);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    if (me && me->armed) {
        P.on_signal(sig, si, uc);
        if (me == &caller) { /* its jump point keeps no mask (a system call less per launch) */
            sigset_t s;
            sigemptyset(&s);
            sigaddset(&s, sig);
            pthread_sigmask(SIG_UNBLOCK, &s, NULL);
        }
        leave_share(3);
    }
    if (me && me != &caller) { /* a fault in gpuc's own code on a worker: die as it would */
        signal(sig, SIG_DFL);
        return; /* the instruction faults again (abort() raises again) */
    }
    for (int i = 0; i < NFAULT; i++) {
        if (fault_signals[i] != sig)
            continue;
        const struct sigaction *b = &P.before[i];
        if (b->sa_flags & SA_SIGINFO) {
            b->sa_sigaction(sig, si, uc);
        } else if (b->sa_handler == SIG_DFL) {
            signal(sig, SIG_DFL);
            raise(sig);
        } else if (b->sa_handler != SIG_IGN) {
            b->sa_handler(sig);
        }
        return;
    }
}

/* Puts our fault handler in front of the one in force (again, should
 * someone have installed another since), and the stop signal's. When
 * SIGSEGV's is still ours, the rest is taken to be too: one system call
 * per launch rather than seven. */
static void install_handlers(void)
{
    static int installed;
    struct sigaction sa;
    if (installed && sigaction(SIGSEGV, NULL, &sa) == 0 && sa.sa_sigaction == on_fault)
        return;
    installed = 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    for (int i = 0; i < NFAULT; i++) {
        struct sigaction now;
        if (sigaction(fault_signals[i], NULL, &now) != 0 || now.sa_sigaction == on_fault)
            continue;
        P.before[i] = now;
        sa.sa_sigaction = on_fault;
        sa.sa_mask = now.sa_mask;
        sigaction(fault_signals[i], &sa, NULL);
    }
    sa.sa_sigaction = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(STOP_SIGNAL, &sa, NULL);
}

/* ---- the workers ---------------------------------------------------------- */

static void *worker_main(void *arg)
{
    slot_t *s = arg;
    me = s;
    stack_t ss = {.ss_sp = s->alt_stack, .ss_size = ALT_STACK_BYTES}, before;
    sigaltstack(&ss, &before); /* put back at the end (a sanitizer frees its own) */
    sigset_t wanted;
    sigemptyset(&wanted);
    for (int i = 0; i < NFAULT; i++)
        sigaddset(&wanted, fault_signals[i]);
    sigaddset(&wanted, STOP_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &wanted, NULL);
    int seen = 0;
    for (;;) {
        int go;
        while ((go = atomic_load(&s->go)) == seen && !atomic_load(&P.quit))
            futex_wait(&s->go, seen, 0);
        if (atomic_load(&P.quit))
            break;
        seen = go;
        if (sigsetjmp(s->env, 1) == 0) {
            s->armed = 1;
            P.share(s->index);
        }
        s->armed = 0;
        s->holding = 0;
        s->stop_wanted = 0;
        if (atomic_fetch_sub(&P.busy, 1) == 1)
            futex_wake(&P.busy);
    }
    sigaltstack(&before, NULL);
    return NULL;
}

static void stop_all(void)
{
    if (!P.started || P.pid != getpid())
        return;
    atomic_store(&P.quit, 1);
    for (int i = 0; i < P.started; i++) {
        atomic_fetch_add(&P.slots[i]->go, 1);
        futex_wake(&P.slots[i]->go);
    }
    for (int i = 0; i < P.started; i++) {
        pthread_join(P.slots[i]->tid, NULL);
        free(P.slots[i]->alt_stack);
        free(P.slots[i]);
        P.slots[i] = NULL;
    }
    P.started = 0;
    atomic_store(&P.quit, 0);
}

/* Starts workers until n run (with every signal blocked: they unblock
 * the ones they take). Returns how many run. */
static int start_workers(int n)
{
    if (P.pid != getpid()) { /* forked: the parent's workers are not here */
        memset(P.slots, 0, sizeof P.slots);
        P.started = 0;
        P.pid = getpid();
    }
    if (!P.exit_registered && atexit(stop_all) == 0)
        P.exit_registered = 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (P.started < n) {
        slot_t *s = calloc(1, sizeof *s);
        if (!s || !(s->alt_stack = malloc(ALT_STACK_BYTES))) {
            free(s);
            break;
        }
        s->index = P.started;
        if (pthread_create(&s->tid, NULL, worker_main, s) != 0) {
            free(s->alt_stack);
            free(s);
            break;
        }
        P.slots[P.started++] = s;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return P.started < n ? P.started : n;
}

int sim_pool_run(int n, void (*share)(int worker), sim_pool_signal_fn on_signal,
                 cm_error_t *err)
{
    if (n > SIM_POOL_MAX)
        n = SIM_POOL_MAX;
    n = start_workers(n);
    if (n <= 0) {
        CM_ERROR(err, ENOMEM, "cannot start the simulator's worker threads");
        return -1;
    }
    install_handlers();
    P.share = share;
    P.on_signal = on_signal;
    atomic_store(&P.busy, n);
    for (int i = 0; i < n; i++) {
        atomic_fetch_add(&P.slots[i]->go, 1);
        futex_wake(&P.slots[i]->go);
    }
    int busy;
    while ((busy = atomic_load(&P.busy)) > 0)
        futex_wait(&P.busy, busy, 0);
    return n;
}

int sim_pool_call(void (*share)(int), int index, sim_pool_signal_fn on_signal)
{
    install_handlers();
    P.on_signal = on_signal;
    caller.armed = 0;
    me = &caller;
    int faulted = sigsetjmp(caller.env, 0) != 0;
    if (!faulted) {
        caller.armed = 1;
        share(index);
    }
    sim_pool_disarm();
    return faulted;
}

void sim_pool_disarm(void)
{
    if (me != &caller)
        return;
    caller.armed = 0;
    caller.holding = 0;
    caller.stop_wanted = 0;
    me = NULL;
}

void sim_pool_stop(void)
{
    if (!P.started || P.pid != getpid())
        return;
    int busy, waits = 0;
    while ((busy = atomic_load(&P.busy)) > 0) {
        /* a while for the workers to stop at a barrier or between blocks
         * (the launch's cut flag), then by the signal */
        for (int i = 0; i < P.started && waits >= STOP_GRACE_WAITS; i++)
            if (P.slots[i]->armed)
                pthread_kill(P.slots[i]->tid, STOP_SIGNAL);
        futex_wait(&P.busy, busy, 5 * 1000 * 1000L);
        waits++;
    }
}

void sim_pool_hold(void)
{
    if (me)
        me->holding++;
}

void sim_pool_release(void)
{
    if (!me || !me->holding)
        return;
    me->holding--;
    if (!me->holding && me->stop_wanted && me->armed) {
        me->stop_wanted = 0;
        leave_share(2);
    }
}
