ê
"serve*2.21.0

xPlaceholder"Ã*½
serving_default©
E
input_1:
serving_default_input_1:0ÿÿÿÿÿÿÿÿÿààD
predictions5
serving_default_predictions:0ÿÿÿÿÿÿÿÿÿètensorflow/serving/predict