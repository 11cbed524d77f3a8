/* rt_program: a whole CUDA program in one cell (kernels and main, as a .cu
 * file), compiled as nvcc means it: one translation unit (rt_program.c;
 * docs/architecture.md, "Whole programs"). */
#ifndef RT_PROGRAM_H
#define RT_PROGRAM_H

#include "rt_error.h"
#include "rt_session.h"

/* 1 when code (a cell's text without its magic line) defines main. */
int rt_program_is(const char *code);

/* Compiles the whole program body (cell `cell`, its lines as the user
 * sees them) as one unit into the session and runs its main. options: the
 * %%cuda line's (nvcc's: all of them go to nvcc on a GPU; on the
 * simulator -D, -U, -I, -O and -std reach g++, the rest means nothing
 * there). 0 when it
 * ran, -1 with err set (a CompileError on the cell's lines, a fault, an
 * exit), 1 when it cannot be built so here (no simulator toolkit headers,
 * no g++, a GPU without nvcc): the caller splits the cell instead. */
int rt_program_run(rt_session_t *s, const char *body, const char *options, int cell,
                   rt_error_t *err);

#endif
