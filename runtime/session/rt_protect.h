/* rt_protect: the protected run boundary, the ONE place where a fault or
 * an interrupt in user code is turned into a status (sigsetjmp/siglongjmp).
 *
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT are handled on an alternate
 * signal stack (so stack overflow is caught too); SIGINT stops a running
 * cell and is ignored while none runs. Outside rt_protect_run a fault is
 * re-raised with its default action (a bug in gpuc itself must not be
 * hidden). rt_protect_init MUST BE CALLED by the thread that runs cells,
 * before rt_protect_run. rt_protect_run has ONE caller,
 * rt_session_protect (rt_session.h), which everything above the session
 * uses and which turns the status into the error value. */
#ifndef RT_PROTECT_H
#define RT_PROTECT_H

#include <stddef.h>

#include "cm_error.h"

#define RT_PROTECT_FRAMES 32

typedef struct rt_fault {
    int signo;              /* SIGSEGV, ..., SIGINT */
    int code;               /* si_code */
    void *addr;             /* si_addr: faulting address (SIGSEGV/SIGBUS/SIGFPE/SIGILL) */
    void *ip;               /* instruction pointer at the fault, or NULL */
    void *frames[RT_PROTECT_FRAMES]; /* return addresses found on the stack */
    int nframes;
    int stack_overflow;     /* the fault address was next to the stack pointer */
    const char *call;       /* the waiting call an interrupt stopped ("sleep"), or NULL */
    int exit_status;        /* RT_PROTECT_EXITED: the status given to exit() */
} rt_fault_t;

/* Installs the handlers and the alternate stack (idempotent). Returns 0,
 * or -1 with err set. */
int rt_protect_init(cm_error_t *err);

/* Runs fn(arg). Returns 0 when it returned, or the signal number that
 * ended it, with *fault filled. errno carries over from one run to the
 * next, as in one program (gpuc's own calls in between do not change it
 * for the cells). Not reentrant. In a process forked by the
 * cell, returning here ends the child with _exit (see rt_protect_on_fork). */
int rt_protect_run(void (*fn)(void *), void *arg, rt_fault_t *fault);

/* Registers (once) that a child forked while a cell runs closes fd and
 * never comes back out of rt_protect_run: it _exits there instead. */
void rt_protect_on_fork(int fd);

/* Waits: a call that blocks (sleep, a read of the cell's stdin) runs
 * between rt_protect_wait_begin and rt_protect_wait_end. An interrupt
 * meanwhile does not jump out of it: it is noted, the call returns early
 * (EINTR, or the stdin reader sees rt_protect_interrupted), and
 * rt_protect_wait_end leaves the cell through the boundary, as an
 * interrupt, so that no later statement of the cell runs. ret is the
 * address in the cell's code the call returns to (where the cell stopped),
 * call its name (static). Only from code run under rt_protect_run; on
 * other threads (a thread a cell started) these do nothing. */
void rt_protect_wait_begin(void);
void rt_protect_wait_end(const char *call, void *ret);

/* After a call that may have been interrupted without being a wait (a
 * read of a pipe, say): leaves the cell as rt_protect_wait_end does if an
 * interrupt is pending, else returns. */
void rt_protect_checkpoint(const char *call, void *ret);

/* Non-zero while an interrupt of the running cell waits to be taken. */
int rt_protect_interrupted(void);

/* Holds: code that takes a lock shared with other threads (the output
 * buffer) runs between rt_protect_hold and rt_protect_release; an
 * interrupt never jumps out of it (it is retried after). Nestable; on
 * other threads than the cell thread they do nothing. */
void rt_protect_hold(void);
void rt_protect_release(void);

/* Non-zero when a SIGINT arrived while no cell ran (then cleared). */
int rt_protect_take_pending_interrupt(void);

/* Ends the running cell with an error (ename, evalue copied) instead of a
 * signal: rt_protect_run returns RT_PROTECT_RAISED and
 * rt_protect_raised() gives the texts. Only from code run under
 * rt_protect_run (a launch from a cell, say). */
#define RT_PROTECT_RAISED (-1)
_Noreturn void rt_protect_raise(const char *ename, const char *evalue);
void rt_protect_raised(const char **ename, const char **evalue);

/* Ends the running cell as exit(status) ends a program, called where ret
 * returns to, but keeps the session: rt_protect_run returns
 * RT_PROTECT_EXITED with the fault's exit_status, ip = ret and call
 * "exit". In a forked child (rt_protect_on_fork) the child exits. */
#define RT_PROTECT_EXITED (-2)
_Noreturn void rt_protect_exit(int status, void *ret);

/* "SIGSEGV", ... for a signal number. Static string. */
const char *rt_protect_signal_name(int signo);

#endif
