"""The Android surface: adbutils devices leased from the registry (`host`), the environment
(`env`), the explicit-step executor grounded on the UI hierarchy (`executor`, `hierarchy`) and the
adb commands they use (`device`). See docs/surfaces.md."""
