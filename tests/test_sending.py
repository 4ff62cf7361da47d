"""attention_server/sending.py's budget for answers waiting in memory."""

from attention_server.sending import Ledger


def test_the_budget_holds_answers_that_fit_and_one_larger_than_it_when_empty():
    ledger = Ledger(100)
    assert ledger.take(60) and ledger.take(40)  # 100 of 100
    assert not ledger.take(1)
    ledger.give(100)
    assert ledger.take(250)  # nothing else held: one answer may exceed the budget
    assert not ledger.take(1)
    ledger.give(250)
    assert ledger.held == 0
