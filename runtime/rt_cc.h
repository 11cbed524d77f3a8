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

#include <jansson.h>

#include "rt_magic.h"
#include "rt_session.h"

/* Runs `%%cc [FLAGS]` (m) of code as cell `cell`. Returns NULL on success
 * (it prints what it compiled), else a new error reply: NoCompiler,
 * UsageError (statements in the cell), CompileError. */
json_t *rt_cc_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell);

#endif
