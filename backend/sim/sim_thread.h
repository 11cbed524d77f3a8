/* sim_thread: the running thread of a checked launch, as the checks see it
 * (internal to backend/sim; sim_check.h says what the checks do).
 *
 * The scheduler (sim_sched.c) writes sim_now as it switches threads, and
 * registers the answers only it can give (stop the launch, name a thread,
 * name a line) with sim_thread_answer at each checked launch. The checks
 * below it (sim_check.c, sim_race.c) read sim_now and ask through
 * sim_thread_stop / _who / _line, so calls run one way, down: the
 * scheduler calls the checks, never the reverse.
 *
 * Threads: the executor's thread only (a checked launch runs on it alone). */
#ifndef SIM_THREAD_H
#define SIM_THREAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_now {
    int active;                /* a checked launch is running its blocks */
    uint32_t stamp;            /* the running block: a counter over all blocks ever run */
    uint32_t first_stamp;      /* the first block of the running launch */
    uint32_t thread;           /* linear index of the running thread in its block */
    uint32_t bgen;             /* __syncthreads() passed by the block so far */
    const unsigned *wgen;      /* warp barriers passed by the running thread's warp */
    uintptr_t stack_lo, stack_hi; /* the running thread's stack */
    uintptr_t image_base;      /* where the running checked module is loaded */
    const void *last_pc;       /* the code of the last checked access (an interrupt's line) */
} sim_now_t;

extern sim_now_t sim_now;

/* What the scheduler answers (sim_sched.c registers them). */
typedef struct sim_thread_answers {
    void (*stop)(int cuda_code, const char *text);
    void (*who)(uint32_t stamp, uint32_t thread, char *buf, size_t len);
    void (*line)(const void *pc, char *buf, size_t len);
} sim_thread_answers_t;

/* The scheduler's answers from now on (static, borrowed). */
void sim_thread_answer(const sim_thread_answers_t *answers);

/* Ends the launch with text as its failure (a memory error): the running
 * thread never resumes. */
void sim_thread_stop(int cuda_code, const char *text);

/* "block [1,0,0], thread [3,0,0]" for a thread of the running launch: the
 * block run at stamp, thread index thread of it. */
void sim_thread_who(uint32_t stamp, uint32_t thread, char *buf, size_t len);

/* "cell 8, line 3" for code address pc of the running kernel ("" unknown). */
void sim_thread_line(const void *pc, char *buf, size_t len);

#endif
