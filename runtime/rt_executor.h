/* rt_executor: the executor process's main loop.
 *
 * Started by the kernel process (or `gpuc run`) as `gpuc executor
 * --link-fd N`: stdin is /dev/null, stdout and stderr are pipes the parent
 * forwards as they fill, fd N is one end of a socketpair carrying cm_link
 * frames. It sends {"op":"ready"} once, then answers each request frame
 * with zero or more output frames and exactly one {"op":"reply"} frame.
 * Before "ready" it applies the operator's limits (rt_limits.h). See
 * docs/architecture.md, "The executor link". */
#ifndef RT_EXECUTOR_H
#define RT_EXECUTOR_H

/* Runs the executor until the link closes or a shutdown request. Returns
 * the process exit status (0 on a clean shutdown). */
int rt_executor_main(int argc, char **argv);

#endif
