/* qf-session-setup.c — a new session and its runner from the operator's choices (src/core).
 * See qf-session-setup.h. The order of the calls is the order the session's notes end up in
 * (profile, built-in peer, quick, re-run), so the wizard and the CLI write the same file. */
#include "config.h"


#include "qf-i18n.h"
#include "qf-pairing.h"
#include "qf-session-check.h"
#include "qf-net-audit.h"
#include "qf-session-setup.h"
#include "qf-text.h"

G_DEFINE_QUARK (qf-session-setup-error-quark, qf_session_setup_error)

QfProfile *
qf_session_setup_run_profile (QfProfile  *profile,
                              gboolean    quick,
                              GError    **error)
{
  const char *variant;

  g_return_val_if_fail (QF_IS_PROFILE (profile), NULL);

  if (!quick || g_str_has_suffix (qf_profile_get_id (profile), "-quick"))
    return g_object_ref (profile);
  variant = qf_profile_get_quick_variant (profile);
  if (variant == NULL)
    {
      g_set_error (error, QF_SESSION_SETUP_ERROR, QF_SESSION_SETUP_ERROR_NO_QUICK_VARIANT,
                   _("Profile “%s” has no quick variant."), qf_profile_get_id (profile));
      return NULL;
    }
  return qf_profile_find (variant, error);
}

static void
set_peer (QfSession              *session,
          const QfSessionChoices *choices)
{
  if (g_strcmp0 (choices->peer_kind, "builtin") == 0)
    {
      qf_session_set_peer (session, "127.0.0.1", "builtin");
      qf_session_add_note (session, "builtin-peer",
                           _("The network figures were measured against the built-in peer on this PC's loopback, not over a real link to a helper machine."));
    }
  else if (g_strcmp0 (choices->peer_kind, "remote") == 0)
    {
      qf_session_set_peer (session, choices->peer_address, "remote");
      qf_session_set_peer_ports (session, choices->peer_latency_port, choices->peer_bandwidth_port);
    }
  else
    qf_session_set_peer (session, NULL, "none");
}

/* The network readiness audit of the interface under test, when one is named. */
static void
record_network_audit (QfSession              *session,
                      const QfSessionChoices *choices)
{
  const char *name = choices->iface != NULL ? qf_net_iface_get_name (choices->iface) : choices->iface_name;
  g_autoptr(GPtrArray) checks = NULL;
  g_autoptr(GError) error = NULL;

  if (name == NULL)
    return;
  if (choices->network_audit != NULL)
    {
      qf_session_set_network_audit (session, name, qf_net_audit_to_json (choices->network_audit));
      return;
    }
  checks = qf_net_audit_run (&(QfNetAuditConfig) { .root = choices->root, .iface = name }, &error);
  if (checks != NULL)
    qf_session_set_network_audit (session, name, qf_net_audit_to_json (checks));
  else
    g_debug ("network audit of %s: %s", name, error->message);
}

/* The interface under test; loopback with the built-in peer when none is named. */
static gboolean
set_network (QfSession               *session,
             const QfSessionChoices  *choices,
             GError                 **error)
{
  QfNetIface *iface = choices->iface;

  if (iface != NULL)
    qf_session_set_network (session, qf_net_iface_get_name (iface),
                            qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS ? "wireless" : "wired",
                            qf_net_iface_get_speed_mbps (iface), qf_net_iface_get_is_usb (iface),
                            qf_net_iface_get_ssid (iface), qf_net_iface_get_signal (iface));
  else if (choices->iface_name != NULL)
    {
      QfNetIfaceSysfs facts;

      if (!qf_net_iface_read_sysfs (choices->root, choices->iface_name, &facts))
        {
          g_autofree char *shown = qf_text_clean (choices->iface_name, -1);

          g_set_error (error, QF_SESSION_SETUP_ERROR, QF_SESSION_SETUP_ERROR_NO_IFACE,
                       _("there is no network interface “%s” (see “ip link”)"), shown);
          return FALSE;
        }
      qf_session_set_network (session, choices->iface_name, facts.kind, facts.speed_mbps,
                              facts.usb, NULL, facts.signal_pct);
    }
  else if (g_strcmp0 (choices->peer_kind, "builtin") == 0)
    qf_session_set_network (session, "lo", "loopback", 0, 0, NULL, -1);
  return TRUE;
}

static void
add_notes (QfSession              *session,
           const QfSessionChoices *choices)
{
  if (choices->quick)
    qf_session_add_note (session, "quick",
                         _("Quick run: the profile's limits with short test durations. Not an acceptance test."));
  if (choices->rerun)
    qf_session_add_note (session, "rerun",
                         _("Only this test was run again; the other tests of the profile are in the earlier session, so this one cannot pass the PC on its own."));
}

gboolean
qf_session_setup_check_only (QfSession          *session,
                             const char *const  *only,
                             GError            **error)
{
  g_return_val_if_fail (QF_IS_SESSION (session), FALSE);

  for (guint i = 0; only != NULL && only[i] != NULL; i++)
    if (qf_session_find_step (session, only[i]) < 0)
      {
        g_set_error (error, QF_SESSION_SETUP_ERROR, QF_SESSION_SETUP_ERROR_NO_TEST,
                     _("profile “%s” has no test “%s”"),
                     qf_profile_get_id (qf_session_get_profile (session)), only[i]);
        return FALSE;
      }
  return TRUE;
}

QfSession *
qf_session_setup (const QfSessionChoices  *choices,
                  GError                 **error)
{
  g_autoptr(QfProfile) profile = NULL;
  g_autoptr(QfSession) session = NULL;

  g_return_val_if_fail (choices != NULL && QF_IS_PROFILE (choices->profile), NULL);

  /* the names go into the report as typed: the same limits as a loaded session's */
  if (!qf_session_check_name (_("The operator's name"), choices->operator_name, error)
      || !qf_session_check_name (_("The customer's name"), choices->customer, error)
      || !qf_session_check_name (_("The site's name"), choices->site, error))
    return NULL;
  profile = qf_session_setup_run_profile (choices->profile, choices->quick, error);
  if (profile == NULL)
    return NULL;
  session = qf_session_new (profile);
  qf_session_set_people (session, choices->operator_name, choices->customer, choices->site);
  /* checked before the folder is made, like everything below: a refused run leaves nothing */
  if (!qf_session_setup_check_only (session, choices->only, error))
    return NULL;
  qf_session_set_only (session, choices->only);
  if (!qf_session_capture_system (session, choices->root, error))
    return NULL;
  set_peer (session, choices);
  if (!set_network (session, choices, error))
    return NULL;
  record_network_audit (session, choices);
  /* a bad token file or code leaves nothing behind either */
  if (choices->token_file != NULL
      && !qf_session_set_token_file (session, choices->token_file, error))
    return NULL;
  if (choices->pairing_code != NULL)
    {
      g_autoptr(GBytes) token = qf_pairing_code_to_token (choices->pairing_code, error);
      if (token == NULL)
        return NULL;
      qf_session_set_pairing_code_used (session, TRUE);
    }
  if (choices->trace)
    qf_session_set_trace (session, TRUE);
  add_notes (session, choices);
  if (!qf_session_set_new_dir (session, choices->out_dir, error))
    return NULL;
  return g_steal_pointer (&session);
}

QfRunner *
qf_session_setup_runner (QfSession              *session,
                         const QfSessionChoices *choices)
{
  QfRunner *runner;

  g_return_val_if_fail (QF_IS_SESSION (session), NULL);
  g_return_val_if_fail (choices != NULL, NULL);

  runner = qf_runner_new (session);
  /* the code was checked by qf_session_setup (or by the caller, for a resumed session) */
  if (choices->pairing_code != NULL)
    {
      g_autoptr(GBytes) token = qf_pairing_code_to_token (choices->pairing_code, NULL);

      if (token != NULL)
        {
          qf_runner_set_token (runner, token);
          qf_session_set_pairing_code_used (session, TRUE);
        }
    }
  if (choices->only != NULL)
    qf_runner_set_only (runner, choices->only);
  if (choices->emulation != NULL)
    qf_runner_set_emulation (runner, choices->emulation);
  return runner;
}
