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

/* Returns a rewritten copy of code (caller frees), or NULL when the cell
 * has nothing to rewrite. */
char *rt_launch_rewrite(const char *code, int cell);

#endif
