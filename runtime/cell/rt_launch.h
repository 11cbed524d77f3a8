/* rt_launch: CUDA's launch syntax in host C cells, rewritten into plain C
 * before the cell is compiled.
 *
 *   saxpy<<<grid, block>>>(n, a, x, y);
 *   saxpy<<<grid, block, shared_bytes, stream>>>(n, a, x, y);
 *
 * becomes a call of __gpuc_launch() that passes the kernel's name, grid
 * and block as dim3 (an integer or a dim3), the address, size and kind
 * ('p' pointer or 's' scalar) of each argument, and the cell and line, so
 * that the arguments can be checked against the kernel's parameters. The
 * C++ constructor forms of tutorials, `dim3 block(16, 16);` and
 * `dim3(4, 4)`, become C compound literals. Everything stays on its own
 * line, so compile errors keep the user's line numbers. */
#ifndef RT_LAUNCH_H
#define RT_LAUNCH_H

#include "rt_lex.h"

/* Returns a rewritten copy of the text read into t (caller frees), or
 * NULL when it has nothing to rewrite. */
char *rt_launch_rewrite_tokens(const rt_tokens_t *t, int cell);

/* rt_launch_rewrite_tokens of a text not read before (it is lexed). */
char *rt_launch_rewrite(const char *code, int cell);

#endif
