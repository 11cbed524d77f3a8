/* rt_cc: %%cc, host cells compiled by the system C compiler ($CC, else
 * cc) with optimisation, into a shared object loaded into the session.
 *
 * The cell sees the session's declarations; its functions and variables
 * become session symbols that later cells (TCC or %%cc) link to. Earlier
 * cells' code lives in TCC's arena and exports nothing, so each compile
 * also builds a stub library whose dynamic symbols are the session's
 * addresses as absolute values: the cell's object links against it and the
 * loader resolves its references there. See docs/magics.md. */
#ifndef RT_CC_H
#define RT_CC_H

/* The magic is rt_magic_cc (rt_magic.h, from rt_magic_list.h): it prints
 * what it compiled, or fails with NoCompiler, UsageError (statements in
 * the cell) or CompileError. This header holds nothing else. */

#endif
