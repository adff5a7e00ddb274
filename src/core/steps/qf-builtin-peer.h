/* qf-builtin-peer.h — the responder on loopback, on its own thread, for `--peer builtin` and the
 * wizard's "This PC only" (src/core).
 *
 * A single-PC or training run measures against this peer: host 127.0.0.1 and free ports picked
 * at start (so it never clashes with a `qualify-cli serve` already running). The runner puts the
 * returned host and ports into the steps' params ("port").
 *
 * The services are those of `qualify-cli serve` (qf-peer-services.h): the latency responder
 * (sockperf-style ping-pong + cycle) and the bandwidth server (iperf3-compatible).
 */
#pragma once

#include <glib.h>

#include "qf-responder.h"

G_BEGIN_DECLS

typedef struct QfBuiltinPeer QfBuiltinPeer;

/* Starts every service on loopback. emulate (may be NULL) makes the latency service answer as a
 * poor link would (training demonstrations). Call from any thread; returns when the sockets are
 * bound and the threads run. */
QfBuiltinPeer *qf_builtin_peer_start              (const QfResponderEmulation *emulate,
                                                   GError                    **error);
const char    *qf_builtin_peer_get_host           (QfBuiltinPeer              *peer);
/* TCP and UDP port of the latency and cycle responder. */
guint16        qf_builtin_peer_get_latency_port   (QfBuiltinPeer              *peer);
/* TCP/UDP port of the bandwidth server. */
guint16        qf_builtin_peer_get_bandwidth_port (QfBuiltinPeer              *peer);
/* Training presets of the emulated link (the wizard's choices): "good-wired" adds nothing (the
 * responder's timer has millisecond steps, finer than any wired link's delay, so loopback as it
 * is stands for a good wired link); "poor-wireless" holds each reply 20 ms ± 15 ms and drops 5 %
 * of UDP replies; "bloated-wired" has a queue that adds up to 40 ms to each reply while the
 * bandwidth test loads its 100 Mbit/s (latency under load shows it). name is N_() marked. NULL-terminated by a NULL id. */
typedef struct
{
  const char           *id;
  const char           *name;
  QfResponderEmulation  emulate;
} QfLinkPreset;

const QfLinkPreset *qf_builtin_peer_get_presets    (void);
/* The preset with this id, or NULL. */
const QfLinkPreset *qf_builtin_peer_find_preset    (const char                 *id);

/* Stop = set the flag, join every thread, free. NULL is allowed. */
void           qf_builtin_peer_stop               (QfBuiltinPeer              *peer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfBuiltinPeer, qf_builtin_peer_stop)

G_END_DECLS
