"""The widgets' wording in several languages (`/captcha/<type>?lang=xx`), and none at all
(`lang=none`): the agent must recognise a widget by its structure, so the practice site can
show the same widget with any wording. English is the default everywhere else."""

from __future__ import annotations

KEYS = ("box", "ocr", "slider", "slider_hint", "rotation", "rotation_hint", "rotation_label", "refresh", "refresh_title")

WORDING: dict[str, dict[str, str]] = {
    "en": {"box": "Security check", "ocr": "Enter the characters shown", "slider": "Drag the slider to fit the puzzle piece",
           "slider_hint": "Slide to complete the puzzle", "rotation": "Drag the slider to turn the picture upright",
           "rotation_hint": "Drag to rotate", "rotation_label": "Rotate the image", "refresh": "New challenge",
           "refresh_title": "Get a new challenge"},
    "de": {"box": "Sicherheitsprüfung", "ocr": "Geben Sie die angezeigten Zeichen ein",
           "slider": "Ziehen Sie den Regler, bis das Teil passt", "slider_hint": "Nach rechts ziehen",
           "rotation": "Ziehen Sie den Regler, um das Bild aufzurichten", "rotation_hint": "Ziehen zum Drehen",
           "rotation_label": "Bild drehen", "refresh": "Neues Bild", "refresh_title": "Neues Bild laden"},
    "fr": {"box": "Vérification", "ocr": "Saisissez les caractères affichés",
           "slider": "Faites glisser le curseur pour placer la pièce", "slider_hint": "Glissez vers la droite",
           "rotation": "Faites glisser pour redresser l'image", "rotation_hint": "Glisser pour tourner",
           "rotation_label": "Tourner l'image", "refresh": "Autre image", "refresh_title": "Charger une autre image"},
    "es": {"box": "Verificación", "ocr": "Escriba los caracteres que ve",
           "slider": "Deslice para completar el rompecabezas", "slider_hint": "Deslice hacia la derecha",
           "rotation": "Deslice para enderezar la imagen", "rotation_hint": "Deslice para girar",
           "rotation_label": "Girar la imagen", "refresh": "Otra imagen", "refresh_title": "Cargar otra imagen"},
    "pt": {"box": "Verificação", "ocr": "Digite os caracteres da imagem",
           "slider": "Arraste para encaixar a peça", "slider_hint": "Arraste para a direita",
           "rotation": "Arraste para endireitar a imagem", "rotation_hint": "Arraste para girar",
           "rotation_label": "Girar a imagem", "refresh": "Outra imagem", "refresh_title": "Carregar outra imagem"},
    "ru": {"box": "Проверка", "ocr": "Введите символы с картинки",
           "slider": "Перетащите ползунок, чтобы собрать пазл", "slider_hint": "Потяните вправо",
           "rotation": "Поверните картинку ползунком", "rotation_hint": "Тяните, чтобы повернуть",
           "rotation_label": "Повернуть картинку", "refresh": "Другая картинка", "refresh_title": "Обновить"},
    "ja": {"box": "認証", "ocr": "表示されている文字を入力してください",
           "slider": "スライダーを動かしてピースを合わせてください", "slider_hint": "右にスライド",
           "rotation": "スライダーで画像をまっすぐにしてください", "rotation_hint": "ドラッグして回転",
           "rotation_label": "画像を回転", "refresh": "別の画像", "refresh_title": "更新"},
    "zh": {"box": "安全验证", "ocr": "请输入图中字符", "slider": "拖动滑块完成拼图", "slider_hint": "向右滑动",
           "rotation": "拖动滑块使图片摆正", "rotation_hint": "拖动旋转", "rotation_label": "旋转图片",
           "refresh": "换一张", "refresh_title": "换一张"},
    "none": dict.fromkeys(KEYS, ""),
}
LANGUAGES = tuple(WORDING)


def wording(lang: str | None) -> dict[str, str]:
    """The widget's texts in `lang` (English when unknown or absent)."""
    return WORDING.get((lang or "en").strip().lower(), WORDING["en"])
