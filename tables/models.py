"""The tables' data: players (patrons) and tables with their rule profile and limits.

Shifts, hands and their events are added by the console (issue 4).
"""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from tables.engine import InvalidRules, Profile, valid_player_id


def validate_player_code(value):
    """A player's code is the id hand records use: 1–64 letters, digits, ``_ - .``;
    not ``bank`` or ``loca``. [hand-record.md "Fields"]"""
    if not valid_player_id(value):
        raise ValidationError(
            _("%(value)s is not a valid player id: 1–64 letters, digits, _ - . (not bank or loca)"),
            params={"value": value})


def validate_rules(value):
    """A table's ``rules``: a profile name or ``{"profile": ..., option: value}``."""
    try:
        Profile.from_rules(value)
    except InvalidRules as error:
        raise ValidationError(error.message) from None


class Player(models.Model):
    """A patron who plays at the tables, holds chips, and may hold the bank.

    ``code`` is the player id used in hand records and in the console.
    """

    code = models.CharField(_("player id"), max_length=64, unique=True, validators=[validate_player_code])
    name = models.CharField(_("name"), max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self):
        return self.name or self.code


class Table(models.Model):
    """A physical table: its rule profile (with overrides), its limits and options.

    ``rules`` is the hand record's ``rules`` value; ``min_bet`` and ``max_bet`` are
    ``Decimal`` euros with two places. ``bank_cover`` ("banca limitada") caps a hand's
    stakes at what the bank tenure holds.
    """

    name = models.CharField(_("name"), max_length=64, unique=True)
    rules = models.JSONField(_("rules"), default=dict, validators=[validate_rules])
    min_bet = models.DecimalField(_("minimum bet"), max_digits=12, decimal_places=2,
                                  validators=[MinValueValidator(Decimal("0"))])
    max_bet = models.DecimalField(_("maximum bet"), max_digits=12, decimal_places=2,
                                  validators=[MinValueValidator(Decimal("0.01"))])
    bank_cover = models.BooleanField(_("bank cover (banca limitada)"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.CheckConstraint(condition=Q(min_bet__gte=0) & Q(max_bet__gte=F("min_bet")) & Q(max_bet__gt=0),
                                   name="table_limits_valid"),
        ]

    def __str__(self):
        return self.name

    @property
    def profile(self):
        """The table's engine ``Profile``."""
        return Profile.from_rules(self.rules)
