/* qf-daemon-auth.c — root, the group qualify, or polkit (src/daemon); see qf-daemon-auth.h.
 *
 * polkit is asked over D-Bus directly (CheckAuthorization on org.freedesktop.PolicyKit1, subject
 * "system-bus-name"), as polkit 0.105 (Ubuntu 22.04) and 122 (Debian 12) both answer it, so the
 * daemon needs no libpolkit. The call may wait for a person typing a password: it is
 * asynchronous, and other callers are served meanwhile. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include "qf-daemon-auth.h"
#include "qf-qualifyd-protocol.h"

/* polkit's CheckAuthorizationFlags */
#define POLKIT_ALLOW_USER_INTERACTION 1u
/* A person may take a while to type a password; polkit's own agent times out before this. */
#define POLKIT_TIMEOUT_MS (10 * 60 * 1000)
#define MAX_GROUPS        4096

typedef struct
{
  QfCaller *caller;
  char     *action;
  gboolean  interactive;
} AuthRequest;

static void
auth_request_free (AuthRequest *request)
{
  qf_caller_unref (request->caller);
  g_free (request->action);
  g_free (request);
}

const char *
qf_access_to_string (QfAccess access)
{
  switch (access)
    {
    case QF_ACCESS_ROOT:
      return QF_QUALIFYD_WORD_ROOT;
    case QF_ACCESS_GROUP:
      return QF_QUALIFYD_WORD_GROUP;
    case QF_ACCESS_POLKIT:
      return QF_QUALIFYD_WORD_POLKIT;
    case QF_ACCESS_POLKIT_AUTH:
      return QF_QUALIFYD_WORD_POLKIT_AUTH;
    case QF_ACCESS_NONE:
    default:
      return QF_QUALIFYD_WORD_NONE;
    }
}

/* getgrnam_r with a buffer that grows for large groups (ERANGE), up to 4 MiB. */
static gboolean
lookup_group (const char    *name,
              struct group  *gr,
              char         **buf)
{
  struct group *found = NULL;

  for (gsize size = 16384; size <= 4 * 1024 * 1024; size *= 4)
    {
      int err;

      g_free (*buf);
      *buf = g_malloc (size);
      err = getgrnam_r (name, gr, *buf, size, &found);
      if (err == 0)
        return found != NULL;
      if (err != ERANGE)
        return FALSE;
    }
  return FALSE;
}

gboolean
qf_daemon_in_group (uid_t       uid,
                    const char *group)
{
  struct passwd pw, *pw_found = NULL;
  struct group gr;
  g_autofree char *pw_buf = g_malloc (16384);
  g_autofree char *gr_buf = NULL;
  g_autofree gid_t *groups = g_new (gid_t, MAX_GROUPS);
  int n = MAX_GROUPS;

  if (getpwuid_r (uid, &pw, pw_buf, 16384, &pw_found) != 0 || pw_found == NULL)
    return FALSE;
  if (!lookup_group (group, &gr, &gr_buf))
    return FALSE;
  if (pw.pw_gid == gr.gr_gid)
    return TRUE;
  if (getgrouplist (pw.pw_name, pw.pw_gid, groups, &n) < 0)
    return FALSE;
  for (int i = 0; i < n; i++)
    if (groups[i] == gr.gr_gid)
      return TRUE;
  return FALSE;
}

static void
on_polkit_reply (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AuthRequest *request = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  gboolean authorized = FALSE, challenge = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      g_object_set_data_full (G_OBJECT (task), "why",
                              g_strdup_printf ("polkit did not answer: %s", error->message),
                              g_free);
      g_task_return_int (task, QF_ACCESS_NONE);
      return;
    }
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  if (authorized)
    {
      qf_caller_set_polkit (request->caller, request->action);
      g_task_return_int (task, QF_ACCESS_POLKIT);
      return;
    }
  g_object_set_data_full (G_OBJECT (task), "why",
                          g_strdup (challenge ? "polkit would ask for authentication, and the "
                                                "call allowed no interaction or no agent answered"
                                              : "polkit refused"),
                          g_free);
  g_task_return_int (task, challenge && !request->interactive ? QF_ACCESS_POLKIT_AUTH
                                                              : QF_ACCESS_NONE);
}

static void
ask_polkit (GDBusConnection *bus,
            GTask           *task)
{
  AuthRequest *request = g_task_get_task_data (task);
  GVariantBuilder subject_details;

  g_variant_builder_init (&subject_details, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&subject_details, "{sv}", "name",
                         g_variant_new_string (qf_caller_name (request->caller)));
  g_dbus_connection_call (bus, "org.freedesktop.PolicyKit1",
                          "/org/freedesktop/PolicyKit1/Authority",
                          "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization",
                          g_variant_new ("((sa{sv})sa{ss}us)", "system-bus-name",
                                         &subject_details, request->action, NULL,
                                         request->interactive ? POLKIT_ALLOW_USER_INTERACTION : 0u,
                                         ""),
                          G_VARIANT_TYPE ("((bba{ss}))"), G_DBUS_CALL_FLAGS_NONE,
                          POLKIT_TIMEOUT_MS, NULL, on_polkit_reply, task);
}

void
qf_daemon_authorize (GDBusConnection     *bus,
                     QfCaller            *caller,
                     const char          *action,
                     gboolean             interactive,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  AuthRequest *request = g_new0 (AuthRequest, 1);

  request->caller = qf_caller_ref (caller);
  request->action = g_strdup (action);
  request->interactive = interactive;
  g_task_set_task_data (task, request, (GDestroyNotify) auth_request_free);

  if (qf_caller_uid (caller) == 0)
    g_task_return_int (task, QF_ACCESS_ROOT);
  else if (qf_daemon_in_group (qf_caller_uid (caller), QF_QUALIFYD_GROUP))
    g_task_return_int (task, QF_ACCESS_GROUP);
  else if (qf_caller_has_polkit (caller, action))
    g_task_return_int (task, QF_ACCESS_POLKIT);
  else
    {
      ask_polkit (bus, task);
      return;
    }
  g_object_unref (task);
}

QfAccess
qf_daemon_authorize_finish (GAsyncResult *result,
                            char        **why)
{
  const char *reason = g_object_get_data (G_OBJECT (result), "why");

  if (why != NULL)
    *why = g_strdup (reason);
  return (QfAccess) g_task_propagate_int (G_TASK (result), NULL);
}
