'''rtkit-mock.py — a python-dbusmock template for org.freedesktop.RealtimeKit1 (tests/cli).

Behaves as rtkit-daemon does for the one call Qualify makes: MakeThreadRealtime(tid, priority)
refuses a priority above MaxRealtimePriority and a process whose RLIMIT_RTTIME hard limit is
unset or above RTTimeUSecMax, and otherwise really makes the thread SCHED_RR|SCHED_RESET_ON_FORK
(the mock runs as root, like rtkit). Parameters: MaxRealtimePriority (20), RTTimeUSecMax (200000).
'''
import dbus

BUS_NAME = 'org.freedesktop.RealtimeKit1'
MAIN_OBJ = '/org/freedesktop/RealtimeKit1'
MAIN_IFACE = 'org.freedesktop.RealtimeKit1'
SYSTEM_BUS = True

MAKE_REALTIME = '''
import os
tid, priority = int(args[0]), int(args[1])
max_priority = int(self.Get("%(iface)s", "MaxRealtimePriority"))
rttime_max = int(self.Get("%(iface)s", "RTTimeUSecMax"))
if priority > max_priority:
    raise dbus.exceptions.DBusException("priority %%d above %%d" %% (priority, max_priority),
                                        name="org.freedesktop.DBus.Error.AccessDenied")
with open("/proc/%%d/limits" %% tid) as f:
    line = [l for l in f if l.startswith("Max realtime timeout")][0]
hard = line.split()[4]
if hard == "unlimited" or int(hard) > rttime_max:
    raise dbus.exceptions.DBusException("RLIMIT_RTTIME hard limit is %%s" %% hard,
                                        name="org.freedesktop.DBus.Error.AccessDenied")
os.sched_setscheduler(tid, os.SCHED_RR | 0x40000000, os.sched_param(priority))
''' % {'iface': MAIN_IFACE}


def load(mock, parameters):
    mock.AddMethods(MAIN_IFACE, [
        ('MakeThreadRealtime', 'tu', '', MAKE_REALTIME),
        ('MakeThreadHighPriority', 'ti', '', ''),
    ])
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary({
        'MaxRealtimePriority': dbus.Int32(parameters.get('MaxRealtimePriority', 20)),
        'MinNiceLevel': dbus.Int32(parameters.get('MinNiceLevel', -15)),
        'RTTimeUSecMax': dbus.Int64(parameters.get('RTTimeUSecMax', 200000)),
    }, signature='sv'))
