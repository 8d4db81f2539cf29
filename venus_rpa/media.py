"""Uploaded media (step and review screenshots, artifacts), served to members of their workspace only.

At project level because it reads from several apps (runs, reviews); no app imports another for it.
"""

from __future__ import annotations

from django.db.models import Q
from django.http import FileResponse, Http404
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace
from venus_rpa.reviews.models import ReviewRequest
from venus_rpa.runs.models import Artifact, Step


class MediaApi(APIView):
    """Serves a step screenshot, review screenshot or artifact file to members of its workspace only."""

    @extend_schema(exclude=True)
    def get(self, request, path: str):
        workspace = request_workspace(request)
        owner = (
            Step.objects.filter(Q(screenshot=path) | Q(screenshot_before=path), run__workspace=workspace).first()
            or ReviewRequest.objects.filter(screenshot=path, workspace=workspace).first()
            or Artifact.objects.filter(file=path, run__workspace=workspace).first()
        )
        if owner is None:
            raise Http404
        stored = (owner.screenshot_before if isinstance(owner, Step) and owner.screenshot_before.name == path
                  else getattr(owner, "screenshot", None) or owner.file)
        try:
            handle = stored.open("rb")
        except FileNotFoundError:
            raise Http404 from None
        if isinstance(owner, Artifact):
            # A run's file came from a web page or a user: never rendered on our origin (an HTML or
            # SVG "report" would run its scripts here), always saved under its safe name.
            response = FileResponse(handle, as_attachment=True, filename=owner.name,
                                    content_type="application/octet-stream")
            response["Content-Security-Policy"] = "sandbox; default-src 'none'"
            response["X-Content-Type-Options"] = "nosniff"
            return response
        return FileResponse(handle)
