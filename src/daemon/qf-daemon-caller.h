/* qf-daemon-caller.h — the processes that call qualifyd, as the bus knows them (src/daemon).
 *
 * A caller is one connection to the system bus (its unique name), with the uid and pid the bus
 * daemon read from the socket when it connected (SO_PEERCRED) and the start time of that pid
 * when qualifyd first saw it. Whatever a caller was granted that lasts — a real-time thread,
 * later a trace instance — is held in its record and released when the connection leaves the
 * bus (the process ended or closed it), so nothing outlives the process that asked for it.
 *
 *   QfCallers *callers = qf_callers_new (bus);
 *   QfCaller *caller = qf_callers_lookup (callers, g_dbus_method_invocation_get_sender (inv), &error);
 *
 * Main thread only. */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct QfCaller  QfCaller;
typedef struct QfCallers QfCallers;

/* One kind of thing a caller holds. still_held: FALSE once it ended by itself (a thread that
 * exited), so it is dropped without release. release: give it back (and free it). */
typedef struct
{
  const char *name;
  gboolean  (*still_held) (QfCaller *caller,
                           gpointer  resource);
  void      (*release)    (QfCaller *caller,
                           gpointer  resource);
} QfHoldClass;

QfCallers  *qf_callers_new           (GDBusConnection *bus);
/* Forgets every caller without releasing what they hold (resources are plain g_malloc'd
 * records): the daemon is stopping, and the grants stay bounded by the kernel. */
void        qf_callers_free          (QfCallers       *callers);
/* The record of `sender` (borrowed; take a reference to keep it across a wait), made on its first
 * call from the bus's credentials. */
QfCaller   *qf_callers_lookup        (QfCallers       *callers,
                                      const char      *sender,
                                      GError         **error);
/* TRUE while any caller still holds something (the daemon must not exit then). */
gboolean    qf_callers_hold_anything (QfCallers       *callers);

QfCaller   *qf_caller_ref            (QfCaller        *caller);
void        qf_caller_unref          (QfCaller        *caller);
const char *qf_caller_name           (QfCaller        *caller);
uid_t       qf_caller_uid            (QfCaller        *caller);
pid_t       qf_caller_pid            (QfCaller        *caller);
/* TRUE while the caller's pid still names the process the bus saw (same start time) and the
 * caller is still on the bus. */
gboolean    qf_caller_is_current     (QfCaller        *caller);

/* Authorisations polkit gave this connection, kept for its life. */
gboolean    qf_caller_has_polkit     (QfCaller        *caller,
                                      const char      *action);
void        qf_caller_set_polkit     (QfCaller        *caller,
                                      const char      *action);

/* Keeps `resource` until the caller leaves the bus (then klass->release) or it ends by itself.
 * A caller that has already left releases it at once. */
void        qf_caller_hold           (QfCaller          *caller,
                                      const QfHoldClass *klass,
                                      gpointer           resource);
/* Takes one resource of `klass` back from the caller's holds without releasing it (the caller
 * of this function gives it back itself), or NULL when it holds none. */
gpointer    qf_caller_take_held      (QfCaller          *caller,
                                      const QfHoldClass *klass);
/* How many resources of `klass` the caller still holds. */
guint       qf_caller_count_held     (QfCaller          *caller,
                                      const QfHoldClass *klass);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfCaller, qf_caller_unref)

G_END_DECLS
