/* qf-responder-clients.c — the clients the latency responder serves now, for other threads
 * (src/engine): the helper page and `qualify-cli serve` show them. The loop publishes a fresh
 * list at housekeeping; readers copy it under a lock the loop never waits for.
 * See qf-responder-private.h for how the responder's files fit together.
 */
#include "config.h"

#include "qf-responder-private.h"

void
qf_served_client_clear (gpointer client)
{
  g_clear_pointer (&((QfServedClient *) client)->address, g_free);
}

void
qf_served_client_append_copy (GArray               *list,
                              const QfServedClient *client)
{
  QfServedClient copy = *client;

  copy.address = g_strdup (client->address);
  g_array_append_val (list, copy);
}

static void
add_served (GArray                        *list,
            const struct sockaddr_storage *addr,
            const char                    *test,
            gint64                         started_ns,
            gint64                         now_ns,
            guint64                        count)
{
  QfServedClient client = {
    .address = qf_net_host_to_string ((const struct sockaddr *) addr),
    .test = test,
    .started_ns = started_ns,
    .as_of_ns = now_ns,
    .count = count,
  };

  g_array_append_val (list, client);
}

/* From housekeeping (every HOUSEKEEPING_NS at most) and when run() ends: the proven TCP clients
 * and the UDP peers being served, swapped in under the lock so a reader copies a whole list;
 * skipped when a reader holds the lock. */
void
_qf_responder_clients_publish (QfResponder *self,
                               gint64       now_ns)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (QfServedClient));
  GArray *old;

  g_array_set_clear_func (list, qf_served_client_clear);
  for (guint i = 0; self->conns != NULL && i < self->n_conns; i++)
    {
      const QfResponderConn *c = &self->conns[i];
      if (c->fd >= 0 && c->proven && c->auth == CONN_AUTH_OPEN)
        add_served (list, &c->addr, "latency-tcp", c->start_ns, now_ns, c->messages);
    }
  for (guint i = 0; self->peers != NULL && i < self->n_peers; i++)
    {
      const QfResponderPeer *p = &self->peers[i];
      if (p->in_use && !p->expired)
        add_served (list, &p->addr, p->cycle ? "cycle" : "latency-udp", p->first_ns, now_ns,
                    p->messages);
    }
  /* The measuring thread never waits on a reader: when one is copying, this round is skipped
   * and the next housekeeping publishes. */
  if (!g_mutex_trylock (&self->clients_lock))
    {
      g_array_unref (list);
      return;
    }
  old = self->clients;
  self->clients = list;
  g_mutex_unlock (&self->clients_lock);
  g_array_unref (old);
}

GArray *
qf_responder_list_clients (QfResponder *self)
{
  GArray *copy = g_array_new (FALSE, TRUE, sizeof (QfServedClient));

  g_return_val_if_fail (self != NULL, copy);

  g_array_set_clear_func (copy, qf_served_client_clear);
  g_mutex_lock (&self->clients_lock);
  for (guint i = 0; i < self->clients->len; i++)
    qf_served_client_append_copy (copy, &g_array_index (self->clients, QfServedClient, i));
  g_mutex_unlock (&self->clients_lock);
  return copy;
}
