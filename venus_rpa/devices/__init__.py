"""The Android device registry: devices (serial, adb server, tags, app table, status, last seen),
their health checks, and the leases runs take on them (`leases`, the runtime's `DeviceLeases`)."""
