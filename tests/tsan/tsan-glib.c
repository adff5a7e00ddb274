/* tsan-glib.c — preloaded into the ThreadSanitizer run of the engine tests and the core
 * runner's (build-tsan, ./run-tests --sanitize). GLib's GMutex, GCond and GAsyncQueue are
 * futex-based inside libglib, which is not instrumented, so TSan cannot see that they order
 * memory and reports every access they guard as a race. These wrappers call the real functions
 * and tell TSan what they do (acquire after a lock or a pop, release before an unlock, a push or
 * a condition wait), so only real races remain. No race is suppressed here (tests/tsan.supp
 * holds the third-party ones, with reasons). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <glib.h>

/* Weak: the library is preloaded (LD_PRELOAD) and child processes the tests start are not
 * built with TSan. */
void __tsan_acquire (void *addr) __attribute__ ((weak));
void __tsan_release (void *addr) __attribute__ ((weak));

static inline void
acquire (void *addr)
{
  if (__tsan_acquire != NULL)
    __tsan_acquire (addr);
}

static inline void
release (void *addr)
{
  if (__tsan_release != NULL)
    __tsan_release (addr);
}

#define REAL(name)                                                         \
  static __typeof__ (&name) real_##name;                                   \
  if (real_##name == NULL)                                                 \
    real_##name = (__typeof__ (&name)) dlsym (RTLD_NEXT, #name)

void
g_mutex_lock (GMutex *mutex)
{
  REAL (g_mutex_lock);
  real_g_mutex_lock (mutex);
  acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  REAL (g_mutex_trylock);
  if (!real_g_mutex_trylock (mutex))
    return FALSE;
  acquire (mutex);
  return TRUE;
}

void
g_mutex_unlock (GMutex *mutex)
{
  REAL (g_mutex_unlock);
  release (mutex);
  real_g_mutex_unlock (mutex);
}

void
g_cond_wait (GCond  *cond,
             GMutex *mutex)
{
  REAL (g_cond_wait);
  release (mutex);
  real_g_cond_wait (cond, mutex);
  acquire (mutex);
}

gboolean
g_cond_wait_until (GCond  *cond,
                   GMutex *mutex,
                   gint64  end_time)
{
  gboolean ok;
  REAL (g_cond_wait_until);
  release (mutex);
  ok = real_g_cond_wait_until (cond, mutex, end_time);
  acquire (mutex);
  return ok;
}

/* GAsyncQueue locks its own GMutex inside libglib, where the wrappers above do not reach. A push
 * and a try-pop run under one more lock here, a pthread mutex TSan sees: that orders the item's
 * contents and the queue's own list node (allocated by the push, freed by the pop; visible with
 * G_SLICE=always-malloc) from the pushing thread to the popping one. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

void
g_async_queue_push (GAsyncQueue *queue,
                    gpointer     data)
{
  REAL (g_async_queue_push);
  pthread_mutex_lock (&queue_lock);
  release (queue);
  real_g_async_queue_push (queue, data);
  pthread_mutex_unlock (&queue_lock);
}

/* The blocking pops cannot hold that lock while they wait, and the list node a push allocated is
 * freed inside the real pop, before a wrapper could tell TSan anything: here they wait by
 * polling the locked try-pop every 0.2 ms instead (the engines' pumps — the latency client's
 * progress, the responder's log — wait so for lines from their measurement threads). */
static gpointer
locked_try_pop (GAsyncQueue *queue)
{
  gpointer item;
  REAL (g_async_queue_try_pop);
  pthread_mutex_lock (&queue_lock);
  item = real_g_async_queue_try_pop (queue);
  pthread_mutex_unlock (&queue_lock);
  return item;
}

gpointer
g_async_queue_try_pop (GAsyncQueue *queue)
{
  return locked_try_pop (queue);
}

gpointer
g_async_queue_pop (GAsyncQueue *queue)
{
  gpointer item;

  while ((item = locked_try_pop (queue)) == NULL)
    g_usleep (200);
  return item;
}

gpointer
g_async_queue_timeout_pop (GAsyncQueue *queue,
                           guint64      timeout)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout;
  gpointer item;

  while ((item = locked_try_pop (queue)) == NULL && g_get_monotonic_time () < end)
    g_usleep (200);
  return item;
}
