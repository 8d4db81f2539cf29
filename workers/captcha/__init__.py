"""CAPTCHA handling for the agent runtime (no Django here).

`workers.captcha.solvers` holds the local, offline CPU solvers used on the CAPTCHA route
(see the safety reference, §6) before any model call or human hand-off.
"""
