"""REST API for the review queue: list, detail, respond (CAPTCHA), approve / reject / edit (risky actions)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from venus_rpa.accounts.permissions import request_workspace, require_role, require_write
from venus_rpa.core.bulk import BulkInSerializer, BulkOutSerializer
from venus_rpa.core.pagination import Pagination
from venus_rpa.core.schema import ERROR_409
from venus_rpa.core.serializers import StrictSerializer
from venus_rpa.reviews import selectors, services
from venus_rpa.reviews.bulk import reviews_bulk_reject
from venus_rpa.reviews.models import ReviewDecision, ReviewKind, ReviewRequest, ReviewStatus


class ReviewDecisionOutSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", default=None, allow_null=True)
    edited_action = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_edited_action(self, decision: ReviewDecision) -> dict:
        return services.action_masked(decision.review, decision.edited_action) if decision.edited_action else {}

    class Meta:
        model = ReviewDecision
        fields = ["decision", "user", "comment", "edited_action", "created_at"]


class ReviewOutSerializer(serializers.ModelSerializer):
    screenshot = serializers.SerializerMethodField()
    automation = serializers.CharField(source="run.automation.slug")
    decided_by = serializers.CharField(source="decided_by.username", default=None, allow_null=True)
    decisions = ReviewDecisionOutSerializer(many=True, read_only=True)
    # Masked as the review's title and detail are: a card number shows its last 4 digits, a security
    # code none (reviews.services.payment_masked); the runtime keeps the real action.
    proposed_action = serializers.SerializerMethodField()
    edited_action = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_proposed_action(self, review: ReviewRequest) -> dict:
        return services.action_masked(review, review.proposed_action)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_edited_action(self, review: ReviewRequest) -> dict:
        return services.action_masked(review, review.edited_action) if review.edited_action else {}

    class Meta:
        model = ReviewRequest
        fields = ["id", "run", "automation", "kind", "status", "title", "detail", "screenshot", "response",
                  "proposed_action", "category", "level", "reason", "fingerprint", "edited_action",
                  "comment", "decided_by", "decided_at", "decisions", "expires_at", "created_at"]

    def get_screenshot(self, review: ReviewRequest) -> str | None:
        if not review.screenshot:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(review.screenshot.url) if request else review.screenshot.url


class ReviewRespondSerializer(StrictSerializer):
    text = serializers.CharField(required=False, max_length=500)
    clicks = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()), required=False)


class ReviewFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReviewStatus.choices, required=False)
    kind = serializers.ChoiceField(choices=ReviewKind.choices, required=False)


class ReviewListApi(APIView):
    pagination_class = Pagination

    @extend_schema(parameters=[ReviewFilterSerializer], responses=ReviewOutSerializer(many=True))
    def get(self, request):
        filters = ReviewFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        reviews = selectors.review_list(workspace=request_workspace(request), status=filters.validated_data.get("status"),
                                        kind=filters.validated_data.get("kind"))
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(reviews, request, view=self)
        return paginator.get_paginated_response(ReviewOutSerializer(page, many=True, context={"request": request}).data)


class ReviewDetailApi(APIView):
    @extend_schema(responses=ReviewOutSerializer)
    def get(self, request, review_id: int):
        review = selectors.review_get(workspace=request_workspace(request), review_id=review_id)
        return Response(ReviewOutSerializer(review, context={"request": request}).data)


class ReviewRespondApi(APIView):
    """Answer a CAPTCHA review: `{"text": "..."}` or `{"clicks": [[x, y], ...]}` in screenshot pixels."""

    @extend_schema(request=ReviewRespondSerializer, responses={200: ReviewOutSerializer, 409: ERROR_409})
    def post(self, request, review_id: int):
        workspace = request_workspace(request)
        review = selectors.review_get(workspace=workspace, review_id=review_id)
        require_write(request, workspace)
        data = ReviewRespondSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        review = services.review_respond(review=review, user=request.user, response=request.data)
        return Response(ReviewOutSerializer(review, context={"request": request}).data)


class ReviewCommentSerializer(StrictSerializer):
    comment = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class ReviewEditSerializer(ReviewCommentSerializer):
    action = serializers.DictField(help_text="The changed fields of the proposed action, e.g. {\"value\": \"...\"}.")


class _DecideApi(APIView):
    decision = ""
    serializer = ReviewCommentSerializer

    def post(self, request, review_id: int):
        workspace = request_workspace(request)
        review = selectors.review_get(workspace=workspace, review_id=review_id)
        require_role(request, workspace, services.DECIDE_ROLES,
                     "Deciding on risky actions needs the owner or reviewer role in the workspace.")
        data = self.serializer(data=request.data)
        data.is_valid(raise_exception=True)
        review = services.review_decide(review=review, user=request.user, decision=self.decision,
                                        comment=data.validated_data.get("comment", ""),
                                        edited_action=data.validated_data.get("action"))
        return Response(ReviewOutSerializer(review, context={"request": request}).data)


class ReviewApproveApi(_DecideApi):
    """Approve a risky action; the run re-checks the page and does it (owner or reviewer role)."""

    decision = "approve"

    @extend_schema(request=ReviewCommentSerializer, responses={200: ReviewOutSerializer, 409: ERROR_409})
    def post(self, request, review_id: int):
        return super().post(request, review_id)


class ReviewRejectApi(_DecideApi):
    """Reject a risky action with a comment: it is not done (owner or reviewer role)."""

    decision = "reject"

    @extend_schema(request=ReviewCommentSerializer, responses={200: ReviewOutSerializer, 409: ERROR_409})
    def post(self, request, review_id: int):
        return super().post(request, review_id)


class ReviewEditApi(_DecideApi):
    """Run an edited action instead, e.g. `{"action": {"value": "corrected text"}}` (owner or reviewer role)."""

    decision = "edit"
    serializer = ReviewEditSerializer

    @extend_schema(request=ReviewEditSerializer, responses={200: ReviewOutSerializer, 409: ERROR_409})
    def post(self, request, review_id: int):
        return super().post(request, review_id)


class ReviewBulkRejectSerializer(BulkInSerializer):
    comment = serializers.CharField(max_length=2000)


class ReviewBulkRejectApi(APIView):
    """Reject several pending risky actions with one comment: one result per id, in order (an id
    of another workspace is reported as not found). Owner or reviewer."""

    @extend_schema(request=ReviewBulkRejectSerializer, responses={200: BulkOutSerializer})
    def post(self, request):
        workspace = request_workspace(request)
        require_role(request, workspace, services.DECIDE_ROLES,
                     "Deciding on risky actions needs the owner or reviewer role in the workspace.")
        data = ReviewBulkRejectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        results = reviews_bulk_reject(workspace=workspace, ids=data.validated_data["ids"], user=request.user,
                                      comment=data.validated_data["comment"])
        return Response(BulkOutSerializer({"results": results}).data)
