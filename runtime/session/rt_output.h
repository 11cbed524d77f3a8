/* rt_output: the executor's stdout and stderr, in the order written.
 *
 * stdout and stderr become streams (fopencookie) that append to ONE
 * buffer of records, so that text written to one and then the other
 * reaches the front end in that order, as in a terminal. The buffer is
 * written to the output fd (a pipe the kernel process reads) as records:
 * one byte, RT_OUTPUT_STDOUT or RT_OUTPUT_STDERR, a 4-byte big-endian
 * length, then that many bytes. It is written when it fills, on
 * rt_output_flush (before every link frame), and by a thread every 50 ms
 * so that text streams while a cell runs.
 *
 * File descriptors 1 and 2 stay the plain pipes they were: a child
 * process (system(), %%sh) writes there; rt_output_write serves write(1 or
 * 2, ...) from cells. rt_output_init MUST BE CALLED once, early, by the
 * thread that runs cells; without it everything writes to fds 1 and 2. */
#ifndef RT_OUTPUT_H
#define RT_OUTPUT_H

#include <stddef.h>

#include "cm_error.h"

enum { RT_OUTPUT_STDOUT = 1, RT_OUTPUT_STDERR = 2 };

#define RT_OUTPUT_HEADER 5 /* bytes before a record's text */

/* Makes stdout and stderr the ordered streams over fd (which it then
 * owns) and starts the flushing thread. Returns 0, or -1 with err set. */
int rt_output_init(int fd, cm_error_t *err);

/* Appends len bytes to stream (RT_OUTPUT_STDOUT or _STDERR). Returns len,
 * or -1 with errno set when the output is gone. */
long rt_output_write(int stream, const void *data, size_t len);

/* Writes what the buffer holds to the output fd. */
void rt_output_flush(void);

/* Takes the text written to stdout since its last newline out of the
 * buffer (the text a terminal shows in front of the cursor: the prompt of
 * a read), up to size - 1 bytes, NUL-terminated in out. Text the flushing
 * thread already sent is not taken. Returns its length. */
size_t rt_output_take_line(char *out, size_t size);

#endif
