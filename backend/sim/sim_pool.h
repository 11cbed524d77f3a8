/* sim_pool: the worker threads that run a launch's blocks on several CPU
 * cores (internal to backend/sim; docs/simulator.md says what users see).
 *
 * The threads are started at the first launch that wants them, kept for
 * the process (a process forked since starts its own at its first such
 * launch), and joined at exit. A launch hands them one function; the
 * caller (the executor's thread) waits until every worker has returned
 * from it. While a worker runs it:
 *
 *   - a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) calls the
 *     launch's signal function on the worker (to record it) and leaves the
 *     worker's share of the launch (so does one on the calling thread
 *     inside sim_pool_call); a fault on any other thread goes to the
 *     handler that was installed before the pool's (rt_protect's);
 *   - sim_pool_stop (after an interrupt jumped out of the wait) makes the
 *     workers leave their share at once, by a signal (the signal function
 *     is called with sig 0, to note where the worker was), except inside
 *     sim_pool_hold / sim_pool_release, where the signal waits for the
 *     release (no jump out of malloc or stdio);
 *   - asynchronous signals (SIGINT) are blocked: they reach the executor's
 *     thread, whose boundary handles them.
 *
 * Threads: call sim_pool_run and sim_pool_stop from one thread. */
#ifndef SIM_POOL_H
#define SIM_POOL_H

#include <signal.h>

#include "cm_error.h"

/* The most workers a launch can use. */
#define SIM_POOL_MAX 256

/* What a fault (sig its signal) or a stop (sig 0) on a worker calls, in
 * the signal handler, on that worker, before the worker leaves its share. */
typedef void (*sim_pool_signal_fn)(int sig, const siginfo_t *si, const void *ucontext);

/* Runs share(0) ... share(n - 1) on n workers at once and returns when all
 * have returned (or left after a fault or sim_pool_stop): the number of
 * workers used (fewer than n when no more threads could be started), or
 * -1 with err when none could. */
int sim_pool_run(int n, void (*share)(int worker), sim_pool_signal_fn on_signal, cm_error_t *err);

/* Runs share(index) on the calling thread under the same rule as a
 * worker's share: a fault calls on_signal (with the fault's sig) on this
 * thread and leaves share; then 1, else 0. Interrupts are not taken here
 * (they go to the boundary in force, rt_protect's): sim_pool_disarm
 * after such a jump out of share. */
int sim_pool_call(void (*share)(int), int index, sim_pool_signal_fn on_signal);

/* Forgets a sim_pool_call that was left by a jump (an interrupt), so that
 * a later fault on this thread goes to the boundary in force again. */
void sim_pool_disarm(void);

/* Makes the workers of a run that was left (an interrupt jumped out of
 * sim_pool_run's wait) stop now, and waits until they have. Nothing when
 * none runs. */
void sim_pool_stop(void);

/* Raises sig on the calling thread with info as it came (the fault of a
 * worker, for the executor's boundary): the handler runs before this
 * returns. Hidden: the fault's report names no function of gpuc's for it. */
__attribute__((visibility("hidden"))) void sim_pool_raise(int sig, const siginfo_t *info);

/* Around code of a worker that must not be left halfway (it holds a lock
 * or allocates): a stop waits for the release. Nothing on other threads. */
void sim_pool_hold(void);
void sim_pool_release(void);

#endif
