"""An emulated Android phone for tests and demos (no Android emulator can run on our hosts).

`python -m practice.android --port 5560` listens for an adb server (`adb connect
127.0.0.1:5560`): it speaks the adb transport protocol (`practice.android.device`) and runs the
shell commands a client drives a phone with (`practice.android.shell`) against a practice mobile
app rendered by Chromium in a phone viewport (`practice.android.screen`). The platform's Android
environment talks to it through a real adb server and adbutils, exactly as to a real device.
"""
