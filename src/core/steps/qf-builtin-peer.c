/* qf-builtin-peer.c — the helper machine's services on loopback on free ports (src/core).
 * See qf-builtin-peer.h; the services themselves are qf-peer-services.c.
 */
#include "config.h"


#include "qf-builtin-peer.h"
#include "qf-i18n.h"
#include "qf-peer-services.h"

#define BUILTIN_HOST "127.0.0.1"

struct QfBuiltinPeer
{
  QfPeerServices *services;
};

/* The services' lines are for a developer only: a run against this peer has no log to show. */
static void
log_to_debug (const char *line,
              gpointer    user_data)
{
  g_debug ("built-in peer: %s", line);
}

static void
warn_failure (const GError *error,
              gpointer      user_data)
{
  g_warning ("built-in peer: %s", error->message);
}

QfBuiltinPeer *
qf_builtin_peer_start (const QfResponderEmulation  *emulate,
                       GError                     **error)
{
  QfPeerServicesConfig config = {
    .bind_address = BUILTIN_HOST,
    .latency_port = 0,
    .bandwidth_port = 0,
    .log = log_to_debug,
    .fail = warn_failure,
  };
  QfBuiltinPeer *self;

  if (emulate != NULL)
    config.emulate = *emulate;
  self = g_new0 (QfBuiltinPeer, 1);
  self->services = qf_peer_services_bind (&config, error);
  if (self->services == NULL)
    {
      g_free (self);
      return NULL;
    }
  qf_peer_services_start (self->services);
  return self;
}

const char *
qf_builtin_peer_get_host (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return BUILTIN_HOST;
}

guint16
qf_builtin_peer_get_latency_port (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return qf_peer_services_get_latency_port (self->services);
}

guint16
qf_builtin_peer_get_bandwidth_port (QfBuiltinPeer *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return qf_peer_services_get_bandwidth_port (self->services);
}

static const QfLinkPreset presets[] = {
  { "good-wired", N_("Good wired link"), { 0, 0, 0 } },
  { "poor-wireless", N_("Poor wireless link"), { 20, 15, 5 } },
  { "bloated-wired", N_("Wired link with a deep queue (bufferbloat)"), { 0, 0, 0, 40, 100 } },
  { NULL, NULL, { 0, 0, 0 } },
};

const QfLinkPreset *
qf_builtin_peer_get_presets (void)
{
  return presets;
}

const QfLinkPreset *
qf_builtin_peer_find_preset (const char *id)
{
  for (guint i = 0; id != NULL && presets[i].id != NULL; i++)
    if (g_str_equal (presets[i].id, id))
      return &presets[i];
  return NULL;
}

void
qf_builtin_peer_stop (QfBuiltinPeer *self)
{
  if (self == NULL)
    return;
  qf_peer_services_stop (self->services);
  g_free (self);
}
