"""overhead.reference: reading any study's published values from data/reference/<study>.csv."""

from __future__ import annotations

import pytest

from overhead import reference
from overhead.errors import DataNotFound, SchemaError

HEADER = "item,metric,env,value,err,err_kind,unit,n,source,status,note\n"


def test_studies_and_the_default_file():
    assert "rc25482" in reference.studies()
    pub = reference.published("rc25482")
    assert len(pub) == 148 and pub["source"].notna().all()


def test_a_csv_path_with_text_values(tmp_path):
    f = tmp_path / "seed.csv"
    f.write_text(HEADER + 'Fig 1,start-up,crun,~110000,,,s,,seed 001 line 4,TEXT-ONLY,\n'
                 'Fig 1,start-up,runc,0.352,0.01,"sample SD, 10 runs",s,10,seed 001 line 5,TEXT-ONLY,\n')
    pub = reference.published(f)
    assert pub.loc[0, "value_text"] == "~110000" and pub.loc[0, "value_parsed"] == 110000
    assert pub.loc[0, "value_qualifier"] == "approx" and pub["value"].isna()[0]
    assert pub.loc[1, "value"] == 0.352 and pub.loc[1, "n"] == 10 and pub.loc[1, "err"] == 0.01


def test_a_bad_cell_names_file_line_and_column(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text(HEADER + "a,b,c,1,,,s,10,src,TEXT-ONLY,\na,b,d,2,,,s,ten,src,TEXT-ONLY,\n")
    with pytest.raises(SchemaError, match=rf"{f}:3: column 'n': 'ten' is not a whole number"):
        reference.published(f)
    f.write_text(HEADER.replace(",note", "") + "a,b,c,1,,,s,10,src,TEXT-ONLY\n")
    with pytest.raises(SchemaError, match=r"missing column\(s\) \['note'\]"):
        reference.published(f)


def test_an_unknown_study_lists_the_known_ones():
    with pytest.raises(DataNotFound, match="studies with a file: .*rc25482"):
        reference.published("no-such-study")
