/* qf-daemon-proc.h — what qualifyd reads about a calling process in /proc (src/daemon).
 *
 * The caller's pid and uid come from the bus; everything else the daemon decides on is read here
 * from the kernel, never taken from the request: whether a thread belongs to the process, who
 * owns it, when it started (so a recycled pid or tid is noticed, as rtkit does) and its limits.
 * /proc/PID/limits, stat and status are readable by every user: the service needs no
 * CAP_SYS_PTRACE, only to see other users' processes (so no ProtectProc=invisible). */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

#define QF_DAEMON_PROC_UNLIMITED G_MAXUINT64

/* The start time (clock ticks after boot) of process `pid` (tid 0) or of its thread `tid`:
 * FALSE when there is no such thread of that process. */
gboolean qf_daemon_proc_start_time (pid_t    pid,
                                    pid_t    tid,
                                    guint64 *start_time);
/* TRUE when all four user ids (real, effective, saved, file system) of thread `tid` of `pid`
 * are `uid`. */
gboolean qf_daemon_proc_owned_by   (pid_t    pid,
                                    pid_t    tid,
                                    uid_t    uid);
/* One line of /proc/PID/limits, e.g. "Max realtime timeout"; QF_DAEMON_PROC_UNLIMITED for
 * "unlimited". */
gboolean qf_daemon_proc_limit      (pid_t        pid,
                                    const char  *name,
                                    guint64     *soft,
                                    guint64     *hard);
G_END_DECLS
