/* rt_input: what cells read from stdin.
 *
 * stdin becomes a stream (fopencookie) over rt_input_read, and read(0, ...)
 * in a cell is served by rt_input_read too (rt_libc). When the front end
 * sends input (the execute request's allow_stdin), a read with nothing
 * left of the last line asks for a line through the asker the executor
 * set (an input_request to the front end), with the text on stdout since
 * its last newline as the prompt; the reply and a newline are the bytes
 * read, line by line. When it does not, reads get end of file and the
 * cell says so once on stderr. rt_input_init MUST BE CALLED once, early. */
#ifndef RT_INPUT_H
#define RT_INPUT_H

#include <stddef.h>

#include "cm_error.h"

/* Asks the front end for one line. Returns 0 with *line (malloc'd, no
 * newline; the caller frees), 1 when there is none to have (end of
 * file), -1 when an interrupt came while waiting or the link failed. */
typedef int (*rt_ask_fn)(void *ctx, const char *prompt, char **line);

/* Makes stdin the cell's input stream and sets the asker. Returns 0, or -1
 * with err set. */
int rt_input_init(rt_ask_fn ask, void *ctx, cm_error_t *err);

/* Before each cell: whether its front end sends input. What an earlier
 * cell left unread is dropped. */
void rt_input_begin_cell(int allowed);

/* Copies up to len bytes of input into dst. Returns the count, 0 at end
 * of file, or -1 with errno EINTR when an interrupt came while waiting
 * (EIO when the link failed). */
long rt_input_read(void *dst, size_t len);

#endif
