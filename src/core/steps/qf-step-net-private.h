/* qf-step-net-private.h — what the network steps (ping, latency, cycle) share (src/core):
 * the peer to measure, the mapping of engine errors onto the step contract and the token. */
#pragma once

#include <math.h>

#include "qf-auth.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-step.h"

/* "host" in params wins over the context's peer (the runner's helper machine). */
static inline gboolean
_qf_step_net_host (JsonObject     *params,
                   QfStepContext  *ctx,
                   const char    **host,
                   GError        **error)
{
  if (!qf_step_param_string (params, "host", ctx != NULL ? ctx->peer : NULL, host, error))
    return FALSE;
  if (*host == NULL || (*host)[0] == '\0')
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("No peer to measure: give the helper machine's address"));
      return FALSE;
    }
  return TRUE;
}

static inline gboolean
_qf_step_net_iface (JsonObject     *params,
                    QfStepContext  *ctx,
                    const char    **iface,
                    GError        **error)
{
  return qf_step_param_string (params, "iface", ctx != NULL ? ctx->iface : NULL, iface, error);
}

static inline void
_qf_step_net_propagate (GError **dest,
                        GError  *src)
{
  QfStepError code;

  if (src == NULL)
    return;
  if (src->domain != QF_NET_ERROR)
    {
      g_propagate_error (dest, src);
      return;
    }
  switch ((QfNetError) src->code)
    {
    case QF_NET_ERROR_INVALID:
      code = QF_STEP_ERROR_INVALID_PARAMS;
      break;
    case QF_NET_ERROR_PERMISSION:
      code = QF_STEP_ERROR_PERMISSION;
      break;
    case QF_NET_ERROR_RESOLVE:
    case QF_NET_ERROR_UNREACHABLE:
    case QF_NET_ERROR_PROTOCOL:
    case QF_NET_ERROR_PEER_LOST:
    case QF_NET_ERROR_BUSY:
      code = QF_STEP_ERROR_PEER;
      break;
    case QF_NET_ERROR_CANCELLED:
      code = QF_STEP_ERROR_CANCELLED;
      break;
    case QF_NET_ERROR_IO:
    default:
      code = QF_STEP_ERROR_FAILED;
      break;
    }
  g_set_error_literal (dest, QF_STEP_ERROR, code, src->message);
  g_error_free (src);
}

/* The responder's access token: the context's in-memory one (a typed pairing code) when it has
 * one, else "token_file" (optional), read from that file (qf-auth.h). Only the path is in the
 * params (and so in the session); the token stays in memory. */
static inline gboolean
_qf_step_net_token (JsonObject     *params,
                    QfStepContext  *ctx,
                    GBytes        **token,
                    GError        **error)
{
  const char *path = NULL;
  GError *net_error = NULL;

  *token = NULL;
  if (ctx != NULL && ctx->token != NULL)
    {
      *token = g_bytes_ref (ctx->token);
      return TRUE;
    }
  if (!qf_step_param_string (params, "token_file", NULL, &path, error))
    return FALSE;
  if (path == NULL || path[0] == '\0')
    return TRUE;
  *token = qf_auth_token_load (path, &net_error);
  if (*token == NULL)
    {
      _qf_step_net_propagate (error, net_error);
      return FALSE;
    }
  return TRUE;
}

/* Three decimals in ms or µs: the figures are exact to the ns or µs behind them. */
static inline gdouble
_qf_step_net_round3 (gdouble value)
{
  return round (value * 1000.0) / 1000.0;
}
