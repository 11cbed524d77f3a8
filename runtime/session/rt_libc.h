/* rt_libc: the C library functions that cells get from gpuc instead of
 * libc, because they wait or use the cell's standard streams:
 * - the waits (sleep, usleep, nanosleep, clock_nanosleep) and the reads of
 *   stdin (scanf, getchar, fgets, getline, read(0, ...), ...): an interrupt
 *   ends the cell there (rt_protect_wait_end), not just the call;
 * - read(0, ...) and write(1 or 2, ...), served by rt_input and rt_output
 *   so that they are in order with stdio;
 * - exit and atexit: exit() ends the cell, not the session (rt_protect_exit).
 * Reads of other files and fds are libc's, followed by a checkpoint. */
#ifndef RT_LIBC_H
#define RT_LIBC_H

#include "rt_api.h"

/* NULL-terminated, static: linked into cells ahead of libc. */
extern const rt_symbol_t rt_libc_symbols[];

#endif
