/* test_rt_output: stdout and stderr as one ordered pipe of records — the
 * order of writes across the two streams, records never over PIPE_BUF
 * bytes (a long write is cut into several), the text in front of the
 * cursor taken out as a prompt. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rt_output.h"

static int read_end;
static FILE *out, *err; /* the ordered streams; the test's own stdio is put back */

/* What the pipe holds, as "<1:text><2:text>" with consecutive records of
 * one stream joined; *largest gets the longest record. Caller frees. */
static char *drain(size_t *largest)
{
    static unsigned char raw[1 << 20];
    ssize_t n = read(read_end, raw, sizeof raw);
    size_t len = n > 0 ? (size_t)n : 0;
    char *text = calloc(1, 2 * len + 64);
    size_t at = 0, pos = 0;
    int last = 0;
    *largest = 0;
    while (pos + RT_OUTPUT_HEADER <= len) {
        int stream = raw[pos];
        size_t rlen = (size_t)raw[pos + 1] << 24 | (size_t)raw[pos + 2] << 16 |
                      (size_t)raw[pos + 3] << 8 | raw[pos + 4];
        pos += RT_OUTPUT_HEADER;
        if (rlen > *largest)
            *largest = rlen;
        if (stream != last) {
            if (last)
                text[at++] = '>';
            at += (size_t)sprintf(text + at, "<%d:", stream);
            last = stream;
        }
        memcpy(text + at, raw + pos, rlen);
        at += rlen;
        pos += rlen;
    }
    if (last)
        text[at++] = '>';
    return text;
}

static void test_order_across_streams(void)
{
    fprintf(out, "one %d\n", 1);
    fprintf(err, "two\n");
    fputs("three, ", out);
    rt_output_write(RT_OUTPUT_STDERR, "four\n", 5);
    fputc('5', out);
    rt_output_flush();
    size_t largest;
    char *text = drain(&largest);
    CHECK_STR(text, "<1:one 1\n><2:two\n><1:three, ><2:four\n><1:5>");
    free(text);
}

static void test_long_write_in_pipe_buf_records(void)
{
    size_t n = 100000;
    char *big = malloc(n);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    fwrite(big, 1, n, out);
    fputs("tail", err);
    rt_output_flush();
    size_t largest;
    char *text = drain(&largest);
    CHECK(largest <= PIPE_BUF - RT_OUTPUT_HEADER);
    CHECK(strncmp(text, "<1:", 3) == 0 && memcmp(text + 3, big, n) == 0);
    CHECK_STR(text + 3 + n, "><2:tail>");
    free(text);
    free(big);
}

static void test_prompt_taken_from_the_current_line(void)
{
    char prompt[64];
    fputs("before\nEnter n: ", out);
    CHECK(rt_output_take_line(prompt, sizeof prompt) == 9);
    CHECK_STR(prompt, "Enter n: ");
    fputs("Name? ", out); /* a whole record of prompt */
    rt_output_take_line(prompt, sizeof prompt);
    CHECK_STR(prompt, "Name? ");
    fputs("warning\n", err); /* the current line is stderr's: no prompt */
    CHECK(rt_output_take_line(prompt, sizeof prompt) == 0);
    CHECK_STR(prompt, "");
    rt_output_flush();
    size_t largest;
    char *text = drain(&largest);
    CHECK_STR(text, "<1:before\n><2:warning\n>");
    free(text);
}

int main(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    read_end = fds[0];
    FILE *real_out = stdout, *real_err = stderr;
    cm_error_t e = {0};
    CHECK(rt_output_init(fds[1], &e) == 0);
    out = stdout;
    err = stderr;
    stdout = real_out;
    stderr = real_err;
    test_order_across_streams();
    test_long_write_in_pipe_buf_records();
    test_prompt_taken_from_the_current_line();
    return check_report("test_rt_output");
}
