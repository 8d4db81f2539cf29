"""What the agent says to the UI-Venus model and how its answers are read.

- `prompts`: the system prompt per surface (our wording, overridable by `VENUS_PROMPT_DIR`).
- `messages`: the OpenAI-format message list for one step (history, feedback, screenshots).
- `parser`: model output -> thought + typed actions, or a `ParseError` to re-ask with.

No Django here, and no network: the model client sits on top of these.
"""
