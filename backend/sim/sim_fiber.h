/* sim_fiber: user-level contexts for the simulator's threads.
 *
 * A fiber runs fn(arg) on a stack of its own and switches back to whoever
 * switched to it, by hand (sim_fiber_switch), with no system call: on
 * x86-64 a few instructions save and load the callee-saved registers and
 * the stack pointer; elsewhere ucontext (whose swapcontext makes a
 * sigprocmask system call per switch: about 10x slower, see
 * docs/simulator.md). Single-threaded: a fiber is resumed only on the OS
 * thread that started it. */
#ifndef SIM_FIBER_H
#define SIM_FIBER_H

#include <stddef.h>

/* A saved context: where a switch resumes. Opaque; zero it before use. */
typedef struct sim_context {
    void *sp;                  /* x86-64: the saved stack pointer */
    void *uc;                  /* elsewhere: a ucontext_t, malloc'd */
} sim_context_t;

/* A stack: size bytes with a guard page below, from mmap. */
typedef struct sim_stack {
    void *base;                /* the mapping, guard page included */
    size_t size;               /* usable bytes above the guard page */
} sim_stack_t;

/* Maps a stack of size bytes (rounded up to pages) with a guard page. 0 /
 * -1 (out of memory). */
int sim_stack_new(sim_stack_t *s, size_t size);
void sim_stack_free(sim_stack_t *s);

/* Prepares ctx to run fn(arg) on stack at its next sim_fiber_switch to it.
 * fn MUST NOT return: it ends by switching away for good. */
void sim_fiber_make(sim_context_t *ctx, sim_stack_t *stack, void (*fn)(void *), void *arg);

/* Saves the running context in from and resumes to. */
void sim_fiber_switch(sim_context_t *from, sim_context_t *to);

/* Frees what a context holds (the ucontext where one is used). */
void sim_context_clear(sim_context_t *ctx);

/* 1 when the switch is gpuc's own (x86-64), 0 when ucontext. */
int sim_fiber_native(void);

#endif
