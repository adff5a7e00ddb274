/* qf-tracefs.h — the privileged part of the latency-cause analysis: a tracefs instance of our
 * own (src/engine).
 *
 * This is the only code that opens tracefs paths. It makes `instances/qualify-<pid>-<n>` (never
 * the top-level buffer, which other tools may be using), sets its clock to "mono" (the clock the
 * measuring threads read), its per-CPU buffer size and the events of qf_trace_event_names, and
 * hands out the file descriptors a reader needs (QfTraceFds). Afterwards it removes the
 * instance. Opening needs write access to tracefs: root, or the privileged helper qualifyd
 * (src/daemon, docs/privileges.md), which calls this module for its caller and passes the
 * descriptors on. It is a library of its own (qf-tracefs) so that qualifyd links nothing else
 * of the engine.
 *
 * tracefs is mounted at /sys/kernel/tracing when it is not mounted anywhere (as trace-cmd does);
 * it is left mounted. Instances a process that has ended left behind (a crash) are removed on
 * the next open.
 *
 * Threads: any one thread; the functions keep no global state besides a counter for instance
 * names, so two instances may be open at once.
 */
#pragma once

#include "qf-trace.h"

G_BEGIN_DECLS

#define QF_TRACEFS_DEFAULT_BUFFER_KB 2048

typedef struct
{
  guint buffer_kb;     /* per CPU; 0 = QF_TRACEFS_DEFAULT_BUFFER_KB */
  pid_t owner_pid;     /* the process the instance is for, in its name; 0 = this process. Once
                        * that process has ended, the next open removes what is left of it. */
} QfTracefsConfig;

/* What the instance records, for the result's "trace" object. */
typedef struct
{
  char     *instance;          /* "qualify-1234-0" */
  char     *mount;             /* where tracefs is mounted */
  guint     buffer_kb;         /* per CPU, as the kernel took it */
  char     *clock;             /* "mono" */
  GStrv     events;            /* the events enabled, "sched/sched_switch", … */
  GStrv     events_missing;    /* events of qf_trace_event_names this kernel lacks */
  GStrv     tracers;           /* the kernel's tracers (available_tracers) */
  gboolean  mounted;           /* TRUE when this open mounted tracefs */
} QfTracefsInfo;

typedef struct QfTracefsInstance QfTracefsInstance;

/* Whether this process may make an instance (tracefs writable, or mountable as root). FALSE
 * with QF_TRACE_ERROR_NOT_ALLOWED or _NO_TRACEFS and a message saying why. Cheap; opens nothing. */
gboolean             qf_tracefs_allowed           (GError               **error);

/* Makes and configures the instance, enables its events and fills *fds (the caller closes them
 * before qf_tracefs_instance_remove: the kernel refuses to remove an instance with open files).
 * Recording starts at once. */
QfTracefsInstance   *qf_tracefs_instance_open     (const QfTracefsConfig *config,
                                                   QfTraceFds            *fds,
                                                   GError               **error);
const QfTracefsInfo *qf_tracefs_instance_info     (const QfTracefsInstance *instance);
/* Frees what an info holds (one filled by someone else, e.g. from qualifyd's answer). */
void                 qf_tracefs_info_clear        (QfTracefsInfo         *info);
/* Stops recording (tracing_on 0); what is in the buffer can still be read. */
void                 qf_tracefs_instance_stop     (QfTracefsInstance     *instance);
/* Removes the instance and frees it. Returns FALSE (and frees it anyway) when the kernel kept the
 * instance, e.g. because a descriptor of it is still open elsewhere. */
gboolean             qf_tracefs_instance_remove   (QfTracefsInstance     *instance,
                                                   GError               **error);

G_END_DECLS
