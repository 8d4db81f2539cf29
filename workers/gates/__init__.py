"""Gates: deterministic checks that judge an action before it runs.

`workers.gates.safety` classifies every action (agent or explicit step) into a risk category and
level and decides allow / review / block. The CAPTCHA route has its own gate in
`workers.captcha.gate`.
"""
