/* sim_thread: the running thread of a checked launch (see sim_thread.h). */
#include "sim_thread.h"

sim_now_t sim_now;

static const sim_thread_answers_t *answers;

void sim_thread_answer(const sim_thread_answers_t *a)
{
    answers = a;
}

void sim_thread_stop(int cuda_code, const char *text)
{
    answers->stop(cuda_code, text);
}

void sim_thread_who(uint32_t stamp, uint32_t thread, char *buf, size_t len)
{
    answers->who(stamp, thread, buf, len);
}

void sim_thread_line(const void *pc, char *buf, size_t len)
{
    answers->line(pc, buf, len);
}
