"""The real UCR archive folder's protocol, shared by the studies that read it.

``bash ../shared/data/ucr_archive.sh DEST`` builds 59 UCR 2018 datasets (ACSF1 to Herring). 46
of them have every published result of ``../shared/data/README.md``; in case-insensitive
order, the first 23 (ACSF1 to Earthquakes) are the *choice* datasets a study may fit or choose
on, the other 23 (ECG200 to Herring) confirm, and the 13 without every published result are
reported apart.
"""

from __future__ import annotations

#: the datasets a study may fit or choose on (benchmarks/cost_model/ fits its model on them)
CHOICE = (
    "ACSF1", "Adiac", "ArrowHead", "BME", "Beef", "BeetleFly", "BirdChicken", "CBF", "Car",
    "Chinatown", "ChlorineConcentration", "CinCECGTorso", "Coffee", "Computers", "CricketX",
    "CricketY", "CricketZ", "Crop", "DiatomSizeReduction", "DistalPhalanxOutlineAgeGroup",
    "DistalPhalanxOutlineCorrect", "DistalPhalanxTW", "Earthquakes",
)

#: the datasets that confirm what the choice datasets chose: no choice reads them
CONFIRM = (
    "ECG200", "ECG5000", "ECGFiveDays", "EOGHorizontalSignal", "EOGVerticalSignal",
    "ElectricDevices", "EthanolLevel", "FaceAll", "FaceFour", "FacesUCR", "FiftyWords", "Fish",
    "FordA", "FordB", "FreezerRegularTrain", "FreezerSmallTrain", "GunPoint", "GunPointAgeSpan",
    "GunPointMaleVersusFemale", "GunPointOldVersusYoung", "Ham", "Haptics", "Herring",
)
