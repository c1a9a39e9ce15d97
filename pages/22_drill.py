"""つまずき練習: the learner's misconception profile, then fresh questions aimed at one misconception
(?m=<id> from a 「このつまずきを練習する」 link, or, for a question-form misconception, from a link such
as 「『不適切なもの』を選ぶ問題を練習する」). Logic: practice.profile, practice.drill; drawing: ui.profile."""
import ui

ui.page("drill")
ui.profile.profile_section(ui.state.get_progress())
ui.profile.drill_section()
